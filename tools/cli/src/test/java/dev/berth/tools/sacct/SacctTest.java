package dev.berth.tools.sacct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Request;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.Response;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** sacct over the server's jobs and its history of finished ones, in Slurm 22.05's layout. */
class SacctTest {
  private static final long NOW = FakeCli.NOW;

  private static Job.Builder job(long number, String name, String user) {
    return Job.newBuilder()
        .setId(number + ".srv")
        .setNumber(number)
        .setName(name)
        .setEuser(user)
        .setQueue("batch")
        .setCtime(NOW - 100);
  }

  /** From the accounting files: ended today. */
  private static final List<Job> HISTORY =
      List.of(
          job(12, "envdemo", "alice")
              .setState(JobState.COMPLETED)
              .setStartTime(NOW - 90)
              .setCompTime(NOW - 83)
              .addExecNodes(NodeAllocation.newBuilder().setNode("n01").addCpus(0).addCpus(1))
              .setResourcesUsed(ResourcesUsed.newBuilder().setMem(2104L * 1024))
              .build(),
          job(13, "a-rather-long-name", "alice")
              .setState(JobState.COMPLETED)
              .setExitStatus(3)
              .setStartTime(NOW - 50)
              .setCompTime(NOW - 40)
              .addExecNodes(NodeAllocation.newBuilder().setNode("n02").addCpus(0))
              .build(),
          job(14, "bobs", "bob").setState(JobState.COMPLETED).setCompTime(NOW - 10).build());

  private static final List<Job> NOW_HELD =
      List.of(
          job(15, "running", "alice")
              .setState(JobState.RUNNING)
              .setStartTime(NOW - 5)
              .addExecNodes(NodeAllocation.newBuilder().setNode("n03").addCpus(0))
              .build());

  private final FakeServer server =
      new FakeServer(
          r ->
              Response.newBuilder()
                  .setJobs(
                      JobList.newBuilder()
                          .addAllJobs(
                              r.getBodyCase() == Request.BodyCase.JOB_HISTORY ? HISTORY : NOW_HELD))
                  .build());

  private Run sacct(String... args) {
    return Run.of(Sacct::run, server, Map.of("TZ", "UTC", "USER", "alice"), "sacct", args);
  }

  @Test
  void theCallersJobsOfTodayInSlurmsDefaultLayout() {
    Run r = sacct();
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
            + "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
            + "12              envdemo      batch                     2  COMPLETED      0:0 \n"
            + "13           a-rather-+      batch                     1     FAILED      3:0 \n"
            + "15              running      batch                     1    RUNNING      0:0 \n",
        r.out());
    Request history = server.requests().get(0);
    assertEquals(List.of("alice"), history.getJobHistory().getUsersList());
    assertEquals("20261130", history.getJobHistory().getFrom(), "since midnight, the day's file");
    assertEquals("20261130", history.getJobHistory().getTo());
  }

  @Test
  void aWindowLongerThanTheServerReadsIsItsLatestDaysWithAWarning() {
    Run r = sacct("-n", "-X", "-P", "-S", "1970-01-01", "-o", "JobIDRaw,State,ExitCode");
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "sacct: warning: Berth reads at most 366 days of finished jobs at a time: those that"
            + " ended before 2025-11-30 are not listed\n",
        r.err());
    assertEquals("20251130", server.requests().get(0).getJobHistory().getFrom());
    assertTrue(r.out().startsWith("12|COMPLETED|0:0\n"), r.out());
  }

  @Test
  void fieldsParsableAndFilters() {
    assertEquals(
        "12|n01|2104K|00:00:07\n",
        sacct("-n", "-P", "-j", "12", "-o", "jobid,nodelist,maxrss,elapsed").out());
    assertEquals("JobID|State|\n13|FAILED|\n", sacct("-p", "-s", "F", "-o", "JobID,State").out());
    assertEquals("14 \n", sacct("-n", "-a", "-u", "bob", "-o", "jobid%2").out());
  }

  @Test
  void whatItDoesNotKnowIsRefusedByName() {
    Run field = sacct("-o", "jobid,tresusageinave");
    assertEquals(1, field.status());
    assertEquals(
        true,
        field.err().startsWith("sacct: error: Invalid field requested: \"tresusageinave\""),
        field.err());
    Run option = sacct("--duplicates");
    assertEquals(1, option.status());
    assertEquals(
        "sacct: error: --duplicates is not supported by Berth's sacct yet (docs/slurm.md lists what"
            + " is)\n",
        option.err());
    assertEquals(1, sacct("-S", "last tuesday").status());
  }
}
