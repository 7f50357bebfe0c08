package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.CpuRanges;
import dev.berth.proto.NodeAllocation;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.SampleJobs;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class AltJobTableTest {
  private static final AltJobTable.Style PLAIN =
      new AltJobTable.Style(false, false, false, false, SizeUnit.AS_GIVEN);
  private static final String RUNNING_ROW =
      "12.srv                  alice       batch    STDIN              4242     1      2       -- "
          + "  01:00:00 R  00:05:00";

  @Test
  void headerNamesTheServerAndItsComment() {
    assertEquals(
        "\nsrv: all good\n"
            + " ".repeat(82)
            + "Req'd       Req'd       Elap\n"
            + "Job ID                  Username    Queue    Jobname          SessID  NDS   TSK   Memory"
            + "      Time    S   Time\n"
            + "----------------------- ----------- -------- ---------------- ------ ----- ------ -----"
            + "---- --------- - ---------\n",
        AltJobTable.header("srv", "all good", PLAIN));
  }

  @Test
  void runningRow() {
    assertEquals(
        RUNNING_ROW + "\n",
        AltJobTable.row(SampleJobs.running().build(), PLAIN, FakeCli.NOW, ZoneOffset.UTC));
  }

  @Test
  void queuedRowHasBlanks() {
    assertEquals(
        "12.srv                  alice       batch    STDIN               --      1      2       -- "
            + "  01:00:00 Q       -- \n",
        AltJobTable.row(SampleJobs.queued().build(), PLAIN, FakeCli.NOW, ZoneOffset.UTC));
  }

  @Test
  void memoryAndCutColumns() {
    var job =
        SampleJobs.queued()
            .setId("1234567.averylongservername.example.org")
            .setName("averyveryverylongjobname")
            .setOwner("averyverylonguser@host")
            .setQueue("longqueuename");
    job.getResourcesBuilder().clearNodeGroups().removeValues("nodect").putValues("mem", "2gb");
    job.getResourcesBuilder().removeValues("nodes");
    assertEquals(
        "1234567.averylongserve  averyverylo longqueu averyveryverylon    --    --     --        2gb"
            + "  01:00:00 Q       -- \n",
        AltJobTable.row(job.build(), PLAIN, FakeCli.NOW, ZoneOffset.UTC));
    AltJobTable.Style gigabytes = new AltJobTable.Style(false, false, false, false, SizeUnit.GB);
    job.getResourcesBuilder().putValues("mem", "1536mb");
    assertEquals(
        "      2gb",
        AltJobTable.row(job.build(), gigabytes, FakeCli.NOW, ZoneOffset.UTC).substring(82, 91),
        "-G rounds up to whole gigabytes");
  }

  @Test
  void nodesGoUnderTheRowOrOnItWithOneLine() {
    AltJobTable.Style nodes = new AltJobTable.Style(true, false, false, false, SizeUnit.AS_GIVEN);
    assertEquals(
        RUNNING_ROW + "\n   n1/0-1\n",
        AltJobTable.row(SampleJobs.running().build(), nodes, FakeCli.NOW, ZoneOffset.UTC));
    AltJobTable.Style oneLine = new AltJobTable.Style(true, true, false, false, SizeUnit.AS_GIVEN);
    assertEquals(
        RUNNING_ROW + "   n1/0-1\n",
        AltJobTable.row(SampleJobs.running().build(), oneLine, FakeCli.NOW, ZoneOffset.UTC));
    assertEquals(
        "    -- \n",
        AltJobTable.row(SampleJobs.queued().build(), nodes, FakeCli.NOW, ZoneOffset.UTC)
            .split("\n", 2)[1],
        "a job without nodes shows Torque's blank");
  }

  @Test
  void commentLine() {
    AltJobTable.Style comment = new AltJobTable.Style(false, false, true, false, SizeUnit.AS_GIVEN);
    assertEquals(
        RUNNING_ROW + "\n   Job started on n1\n",
        AltJobTable.row(
            SampleJobs.running().setComment("Job started on n1").build(),
            comment,
            FakeCli.NOW,
            ZoneOffset.UTC));
    assertEquals(
        "    -- \n",
        AltJobTable.row(SampleJobs.running().build(), comment, FakeCli.NOW, ZoneOffset.UTC)
            .split("\n", 2)[1]);
  }

  @Test
  void estimatedStartsReplaceTheElapsedTimeWithMinusT() {
    AltJobTable.Style estimated =
        new AltJobTable.Style(false, false, false, true, SizeUnit.AS_GIVEN);
    String header = AltJobTable.header("srv", "", estimated);
    assertEquals("Req'd       Req'd        Est", header.split("\n")[2].strip());
    assertTrue(header.split("\n")[3].endsWith("Time    S   Start"), header);
    long now = FakeCli.NOW;
    var queued = SampleJobs.queued();
    assertEquals(
        "      -- ",
        AltJobTable.row(queued.build(), estimated, now, ZoneOffset.UTC).substring(104, 113));
    // now is Monday 2026-11-30 10:00 UTC
    assertEquals(
        "    11:00",
        AltJobTable.row(
                queued.setEstimatedStartTime(now + 3600).build(), estimated, now, ZoneOffset.UTC)
            .substring(104, 113));
    assertEquals(
        List.of("11:00", "Thu 10", "Jan", "2028"),
        List.of(
            AltJobTable.estimated(now + 3600, now, ZoneOffset.UTC),
            AltJobTable.estimated(now + 3 * 86400, now, ZoneOffset.UTC),
            AltJobTable.estimated(now + 40 * 86400, now, ZoneOffset.UTC),
            AltJobTable.estimated(now + 400 * 86400, now, ZoneOffset.UTC)));
  }

  @Test
  void longExecHostsBreakBeforeAPlus() {
    var job = SampleJobs.running().clearExecNodes();
    for (int i = 1; i <= 8; i++) {
      job.addExecNodes(
          NodeAllocation.newBuilder().setNode("node0" + i).addCpus(0).addCpus(1).addCpus(2));
    }
    String execHost = CpuRanges.execHost(job.getExecNodesList());
    assertEquals(
        76 + 11, execHost.length(), "seven hosts fill 76 columns, the eighth does not fit");
    assertEquals(
        "   node01/0-2+node02/0-2+node03/0-2+node04/0-2+node05/0-2+node06/0-2+node07/0-2\n"
            + "   +node08/0-2\n",
        AltJobTable.nodeLines(execHost, 77));
  }

  @Test
  void domainsAreLeftOutOfTheNodeList() {
    assertEquals("   n1+n2\n", AltJobTable.nodeLines("n1.cluster.org/0-1+n2.cluster.org/0", 77));
  }
}
