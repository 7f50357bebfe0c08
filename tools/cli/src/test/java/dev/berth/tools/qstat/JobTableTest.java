package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.JobState;
import dev.berth.tools.testing.SampleJobs;
import org.junit.jupiter.api.Test;

class JobTableTest {
  @Test
  void headerIsTorques() {
    assertEquals(
        "Job ID                    Name             User            Time Use S Queue\n"
            + "------------------------- ---------------- --------------- -------- - -----\n",
        JobTable.HEADER);
  }

  @Test
  void runningJobShowsCpuTimeUsed() {
    assertEquals(
        "12.srv                    STDIN            alice           00:02:05 R batch          \n",
        JobTable.row(SampleJobs.running().build()));
  }

  @Test
  void jobWithoutUsageShowsZero() {
    assertEquals(
        "12.srv                    STDIN            alice                  0 Q batch          \n",
        JobTable.row(SampleJobs.queued().build()));
  }

  @Test
  void longFieldsAreCutAsTorqueCutsThem() {
    String row =
        JobTable.row(
            SampleJobs.queued()
                .setId("1234567.averylongservername.example.org")
                .setName("averyveryverylongjobname")
                .setOwner("averyverylonguser@host")
                .setQueue("longqueuenameisverylong")
                .build());
    assertEquals(
        "1234567.averylongservername. ...rylongjobname averyverylongus        0 Q longqueuenameis\n",
        row);
  }

  @Test
  void longNamesKeepTheirTailFromASlash() {
    String row =
        JobTable.row(
            SampleJobs.queued()
                .setId("13[].srv")
                .setName("/home/alice/scripts/run.sh")
                .setOwner("bob@login1")
                .setState(JobState.HELD)
                .build());
    assertEquals(
        "13[].srv                  .../run.sh       bob                    0 H batch          \n",
        row);
  }

  @Test
  void cpuTimeOverEightCharactersIsCut() {
    var job = SampleJobs.running();
    job.getResourcesUsedBuilder().setCput(152 * 3600 + 53 * 60 + 31);
    assertEquals("152:53:3", JobTable.timeUsed(job.build()));
  }
}
