package dev.berth.server.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class UsageReportTest {
  /** A Torque 6 E line (OSC's, as pbsacct's tests carry it), and two of Berth's. */
  private static final List<String> LINES =
      List.of(
          "10/25/2018 17:02:48;E;13512.pitzer-batch.ten.osc.edu;user=troy group=PZS0708"
              + " account=PZS0708 jobname=ht-test queue=newsyntax ctime=1540501291"
              + " qtime=1540501291 etime=1540501291 start_count=1 start=1540501334"
              + " owner=troy@pitzer-login01.hpc.osc.edu exec_host=p0221/0-79"
              + " Resource_List.walltime=01:00:00 Resource_Request_2.0=-L"
              + " tasks=1:lprocs=80:memory=100GB:allowthreads session=149510"
              + " total_execution_slots=80 unique_node_count=1 end=1540501368 Exit_status=0"
              + " resources_used.cput=253 resources_used.vmem=159171128kb"
              + " resources_used.walltime=00:00:33 resources_used.mem=15448300kb",
          "12/03/2026 10:00:00;Q;7.srv;queue=batch",
          "12/03/2026 10:01:00;E;7.srv;user=alice group=users jobname=a queue=batch"
              + " total_execution_slots=2 end=1 Exit_status=0 resources_used.cput=3600"
              + " resources_used.walltime=01:00:00",
          "12/03/2026 10:02:00;E;8.srv;user=alice group=users account=proj queue=long"
              + " Exit_status=1 resources_used.cput=60 resources_used.walltime=00:30:00",
          "12/03/2026 10:03:00;E;9.srv;user=bob resources_used.walltime=soon");

  @Test
  void sumsEndedJobsPerUserGroupAccountAndQueue() {
    UsageReport report = new UsageReport();
    LINES.forEach(report::add);
    assertEquals(3, report.jobs());
    assertEquals(1, report.unreadable(), "bob's walltime is no time");
    assertEquals(
        List.of(
            new UsageReport.Usage("alice", 2, 2 * 3600 + 1800, 3660, 5400),
            new UsageReport.Usage("troy", 1, 80 * 33, 253, 33)),
        report.by("user"));
    assertEquals(
        List.of("(none)", "PZS0708", "proj"),
        report.by("account").stream().map(UsageReport.Usage::name).toList());
    String json = report.json("20181025", "20261203");
    assertTrue(
        json.startsWith("{\"from\":\"20181025\",\"to\":\"20261203\",\"jobs\":3,\"unreadable\":1,"),
        json);
    assertTrue(
        json.contains(
            "{\"name\":\"alice\",\"jobs\":2,\"cpu_seconds\":9000,\"cput_seconds\":3660,"
                + "\"wall_seconds\":5400}"),
        json);
    String text = report.text("20181025", "20261203");
    assertTrue(
        text.contains("alice                       2         2.50         1.02         1.50"),
        text);
  }
}
