package dev.berth.tools.sprio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.Response;
import dev.berth.proto.SchedulingPriority;
import dev.berth.proto.ServerStatus;
import dev.berth.tools.testing.Run;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** sprio over the scheduler's priorities, in Slurm 22.05's layouts (docs/slurm.md, sprio). */
class SprioTest {
  private static Job job(long number, String user, JobState state, long total, long user_) {
    return Job.newBuilder()
        .setId(number + ".srv")
        .setNumber(number)
        .setEuser(user)
        .setQueue("batch")
        .setState(state)
        .setSchedPriority(
            SchedulingPriority.newBuilder()
                .setTotal(total)
                .setUser(user_)
                .setAge(total - user_ - 500)
                .setFairShare(500))
        .build();
  }

  private final FakeServer server =
      new FakeServer(
          r ->
              switch (r.getBodyCase()) {
                case STAT_JOBS ->
                    Response.newBuilder()
                        .setJobs(
                            JobList.newBuilder()
                                .addJobs(job(15, "bob", JobState.QUEUED, 1100, 500))
                                .addJobs(job(14, "alice", JobState.QUEUED, 1250, 500))
                                .addJobs(job(16, "alice", JobState.HELD, 900, 500))
                                .addJobs(job(17, "alice", JobState.RUNNING, 900, 500)))
                        .build();
                case STAT_SERVER ->
                    Response.newBuilder()
                        .setServer(
                            ServerStatus.newBuilder()
                                .putAttributes("priority_weight_age", "1000")
                                .putAttributes("priority_weight_fairshare", "1000"))
                        .build();
                default -> FakeServer.ack();
              });

  private Run sprio(String... args) {
    return Run.of(Sprio::run, server, Map.of("TZ", "UTC", "USER", "alice"), "sprio", args);
  }

  @Test
  void pendingJobsWithAColumnForEachWeightedFactor() {
    Run r = sprio();
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE\n"
            + "             14 batch           1250        500        250        500\n"
            + "             15 batch           1100        500        100        500\n",
        r.out());
  }

  @Test
  void normalisedWeightsUsersAndTheLongLayout() {
    assertEquals(
        "          JOBID PARTITION PRIORITY   AGE        FAIRSHARE \n"
            + "             14 batch     0.00000029 0.2500000  0.5000000 \n",
        sprio("-n", "-j", "14").out());
    assertEquals(
        "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE\n"
            + "        Weights                            1000       1000       1000\n",
        sprio("-w").out());
    assertEquals(
        "          JOBID PARTITION     USER   PRIORITY       SITE        AGE  FAIRSHARE\n"
            + "             15 batch          bob       1100        500        100        500\n",
        sprio("-u", "bob").out());
    assertEquals(
        "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE"
            + "    JOBSIZE  PARTITION        QOS        NICE                 TRES\n"
            + "             14 batch        alice       1250        500        250          0"
            + "        500          0          0          0           0                     \n",
        sprio("-l", "-j", "14").out());
    assertEquals("14|1250\n", sprio("-h", "-j14", "-o", "%i|%Y").out());
  }

  @Test
  void slurmsMessages() {
    Run none = sprio("-j", "16");
    assertEquals(0, none.status());
    assertEquals("Unable to find jobs matching user/id(s) specified\n", none.out());
    Run both = sprio("-l", "-o", "%i");
    assertEquals(1, both.status());
    assertEquals(
        "sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove"
            + " one and retry.\n",
        both.err());
    assertEquals(1, sprio("-S", "y").status());
  }
}
