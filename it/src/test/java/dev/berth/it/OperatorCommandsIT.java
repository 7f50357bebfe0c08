package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Torque's operator commands as real processes of root and of unprivileged users against a server
 * and two moms: qrun, qrerun, qmove, qorder, qchkpt and momctl, each with its permission check and
 * its error for a bad id; momctl -s stops a mom whose job runs on, and a mom started again finds
 * it.
 */
@Tag("integration")
class OperatorCommandsIT {
  static final String USER = TestUsers.ALICE;
  static final String OTHER = TestUsers.BOB;
  static final Duration LONG = Duration.ofSeconds(90);
  static final String MISSING = "99999";

  static MultiNodeCluster cluster;
  static Path work;
  static final List<String> jobs = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER, OTHER);
    work = MultiNodeCluster.workFor(USER, "berth-operator-");
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", "0");
    cluster.startMom("b", "1");
    cluster.qmgr("create queue long queue_type = execution, enabled = True, started = True");
  }

  @AfterEach
  void deleteJobs() {
    cluster.qmgr("set server scheduling = False");
    for (String id : jobs) {
      cluster.cli("qdel", id);
    }
    jobs.clear();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
  }

  /** ops/bin/COMMAND as {@code user}, or as root when null. */
  private static TestCluster.Result as(String user, String command, String... args) {
    if (user == null) {
      return cluster.cli(command, args);
    }
    List<String> argv =
        new ArrayList<>(
            List.of("runuser", "-u", user, "--", "env", "BERTH_SERVER=" + cluster.socket));
    argv.add(TestCluster.ROOT.resolve("ops/bin").resolve(command).toString());
    argv.addAll(List.of(args));
    return TestCluster.exec(work, argv);
  }

  private static void ok(TestCluster.Result r) {
    assertEquals(0, r.exit(), r.toString());
  }

  /** The command failed, saying {@code fragments} on stderr after its name. */
  private static void refused(TestCluster.Result r, String command, String... fragments) {
    assertNotEquals(0, r.exit(), r.toString());
    assertTrue(r.err().startsWith(command + ": "), r.toString());
    for (String f : fragments) {
      assertTrue(r.err().contains(f), "'" + f + "' in " + r);
    }
  }

  private static String queued() throws Exception {
    String id = cluster.submitAs(USER, work, "sleep 600\n");
    jobs.add(id);
    return id;
  }

  private static Job job(String id) {
    return cluster.await(id, j -> true, LONG);
  }

  @Test
  void qrunStartsAJobOnTheNodeAnOperatorNamesAndNobodyElseMay() throws Exception {
    cluster.qmgr("set server scheduling = False");
    String id = queued();
    refused(as(USER, "qrun", id), "qrun", "only managers and operators may");
    refused(as(null, "qrun", "-H", "nosuch", id), "qrun", "Unknown node", "nosuch");
    ok(as(null, "qrun", "-H", "b", id));
    Job running = cluster.await(id, j -> j.getStartTime() > 0, LONG);
    assertEquals("b", running.getExecNodes(0).getNode());
    refused(as(null, "qrun", id), "qrun", "job already running", id);
    refused(as(null, "qrun", MISSING), "qrun", "Unknown Job Id");
  }

  @Test
  void qrerunQueuesARunningJobAgainForOperatorsOnly() throws Exception {
    cluster.qmgr("set server scheduling = False");
    String id = queued();
    ok(as(null, "qrun", id));
    cluster.await(id, j -> j.getStartTime() > 0, LONG);
    refused(as(USER, "qrerun", id), "qrerun", "only managers and operators may");
    ok(as(null, "qrerun", id));
    cluster.await(id, j -> j.getState() == JobState.QUEUED, LONG);
    TestCluster.Result trace = as(null, "tracejob", id);
    assertTrue(trace.out().contains("Job Rerun at request of root@"), trace.toString());
    assertTrue(trace.out().contains("requeued: rerun by root@"), trace.toString());
    refused(as(null, "qrerun", MISSING), "qrerun", "Unknown Job Id");
  }

  @Test
  void ownersMoveAndOrderTheirJobsAndOthersMayNot() throws Exception {
    cluster.qmgr("set server scheduling = False");
    String first = queued();
    String second = queued();
    ok(as(USER, "qmove", "long", first));
    assertEquals("long", job(first).getQueue());
    TestCluster.Result trace = as(USER, "tracejob", first);
    assertTrue(trace.out().contains("Job moved to long at request of " + USER + "@"), trace.out());
    refused(as(OTHER, "qmove", "batch", first), "qmove", "Unknown Job Id");
    refused(as(USER, "qmove", "nowhere", second), "qmove", "unknown queue");
    refused(as(USER, "qmove", "long", MISSING), "qmove", "Unknown Job Id");

    ok(as(USER, "qorder", first, second));
    assertEquals("batch", job(first).getQueue(), "jobs in two queues swap queues");
    assertEquals("long", job(second).getQueue());
    refused(as(OTHER, "qorder", first, second), "qorder", "Unknown Job Id");
    refused(as(USER, "qorder", first, MISSING), "qorder", "Unknown Job Id");
  }

  @Test
  void qchkptSaysNoJobIsCheckpointable() throws Exception {
    String id = queued();
    refused(as(USER, "qchkpt", id), "qchkpt", "job is not checkpointable", id);
    refused(as(USER, "qchkpt", MISSING), "qchkpt", "Unknown Job Id");
  }

  @Test
  void momctlShowsAMomsDiagnosticsToAnyoneAndOrdersItForOperators() {
    TestCluster.Result diag = as(USER, "momctl", "-d", "1", "-h", "a");
    ok(diag);
    for (String line :
        List.of(
            "Host: a",
            "Last Msg To Server:",
            "HomeDirectory:",
            "MOM active:",
            "diagnostics complete")) {
      assertTrue(diag.out().contains(line), "'" + line + "' in " + diag);
    }
    TestCluster.Result version = as(USER, "momctl", "-q", "version", "-h", "a");
    ok(version);
    assertTrue(version.out().contains("version"), version.toString());
    refused(as(USER, "momctl", "-d", "0", "-h", "nosuch"), "momctl", "nosuch");

    refused(as(USER, "momctl", "-C", "-h", "a"), "momctl", "only managers and operators may");
    TestCluster.Result cycled = as(null, "momctl", "-C", "-h", "a");
    ok(cycled);
    assertTrue(cycled.out().contains("successfully cycled"), cycled.toString());
    refused(as(USER, "momctl", "-s", "-h", "b"), "momctl", "only managers may");
  }

  /**
   * With query_other_jobs False (the default), bob sees in no view of the node the id of alice's
   * job that runs on it, as qstat does not show it him; alice and root do, and with
   * query_other_jobs True bob too.
   */
  @Test
  void pbsnodesAndMomctlShowAnotherUsersJobIdOnlyWhereQstatWould() throws Exception {
    cluster.qmgr("set server scheduling = False");
    String id = queued();
    ok(as(null, "qrun", "-H", "a", id));
    cluster.await(id, j -> j.getStartTime() > 0, LONG);
    List<List<String>> views =
        List.of(
            List.of("pbsnodes", "a"),
            List.of("pbsnodes", "-x", "a"),
            List.of("pbsnodes", "-F", "json", "a"),
            List.of("momctl", "-d", "3", "-h", "a"),
            List.of("momctl", "-q", "jobs", "-h", "a"));
    // the mom's status report names the job too: wait for it, so that each view has it to hide
    long deadline = System.currentTimeMillis() + LONG.toMillis();
    while (!as(null, "momctl", "-q", "jobs", "-h", "a").out().contains(id)) {
      assertTrue(System.currentTimeMillis() < deadline, "the mom did not report " + id);
      TestCluster.sleep(100);
    }
    for (List<String> view : views) {
      String[] args = view.subList(1, view.size()).toArray(String[]::new);
      TestCluster.Result own = as(USER, view.get(0), args);
      ok(own);
      assertTrue(own.out().contains(id), view + " shows alice her job: " + own);
      assertTrue(as(null, view.get(0), args).out().contains(id), view + " shows root every job");
      TestCluster.Result other = as(OTHER, view.get(0), args);
      ok(other);
      assertTrue(other.out().contains("a"), other.toString());
      assertTrue(!other.out().contains(id), view + " hides alice's job from bob: " + other);
    }
    refused(as(OTHER, "qstat", id), "qstat", "Unknown Job Id");
    cluster.qmgr("set server query_other_jobs = True");
    try {
      for (List<String> view : views) {
        TestCluster.Result other =
            as(OTHER, view.get(0), view.subList(1, view.size()).toArray(String[]::new));
        assertTrue(other.out().contains(id), view + " with query_other_jobs: " + other);
      }
    } finally {
      cluster.qmgr("set server query_other_jobs = False");
    }
  }

  @Test
  void momctlStopsAMomWhoseJobRunsOnAndARestartedMomFindsIt() throws Exception {
    cluster.qmgr("set server scheduling = False");
    // long enough that the server does not give the node up while its mom restarts
    cluster.qmgr("set server node_check_rate = 120");
    try {
      stopAndRestartMomB();
    } finally {
      cluster.qmgr("set server node_check_rate = 4");
    }
  }

  private void stopAndRestartMomB() throws Exception {
    String id = queued();
    ok(as(null, "qrun", "-H", "b", id));
    Job running = cluster.await(id, j -> j.getStartTime() > 0, LONG);
    TestCluster.Result stopped = as(null, "momctl", "-s", "-h", "b");
    ok(stopped);
    assertTrue(stopped.out().contains("shutdown request successful on b"), stopped.toString());
    assertEquals(0, cluster.awaitMomExit("b", LONG), cluster.momLog("b"));
    assertTrue(
        TestCluster.exec(work, List.of("kill", "-0", Long.toString(running.getSessionId()))).exit()
            == 0,
        "the job's processes run on without their mom");

    cluster.launchMom("b", "1");
    cluster.awaitNode("b", "job-exclusive");
    assertEquals(running.getStartTime(), job(id).getStartTime(), "the same run, found again");
    ok(as(USER, "qdel", id));
    cluster.await(id, j -> j.getState() == JobState.COMPLETED, LONG);
  }
}
