package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.MultiNodeCluster.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Several nodes as separate mom processes on this host, each with its own CPUs and cgroup root:
 * jobs across nodes, exclusive CPUs, qdel everywhere, and a sister mom that dies.
 */
@Tag("integration")
class MultiNodeIT {
  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    cluster = MultiNodeCluster.start();
    cluster.startMom("n1", "0");
    cluster.startMom("n2", "1");
    cluster.qmgr("set node n1 properties = plain");
    cluster.qmgr("set node n2 properties = plain");
    cluster.qmgr("set server cgroup_enable = True");
    work = Files.createTempDirectory(Path.of("/tmp"), "berth-multi-work-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(work);
  }

  @Test
  void aTwoNodeJobHasACgroupWithItsCpusOnEachNodeAndQdelClearsBoth() throws Exception {
    String id = cluster.submit(work, "sleep 3011\n", "-l", "nodes=2:ppn=1:plain");
    Job job = cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    assertEquals(List.of("n1", "n2"), nodes(job));
    for (NodeAllocation a : job.getExecNodesList()) {
      Path cg =
          Path.of("/sys/fs/cgroup/cpuset", cluster.cgroupRoot, a.getNode(), id, "cpuset.cpus");
      assertEquals(
          a.getCpusList().stream().map(String::valueOf).collect(Collectors.joining(",")),
          Files.readString(cg).trim(),
          "the job's cgroup on " + a.getNode() + " has exactly its CPUs");
    }
    long before = System.currentTimeMillis();
    assertEquals(0, cluster.cli("qdel", id).exit());
    cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(5));
    awaitTrue(
        () -> !cluster.hasCgroups(id) && Processes.matching("sleep 3011").isEmpty(),
        Duration.ofSeconds(5));
    assertTrue(System.currentTimeMillis() - before < 5000, "gone from both nodes within 5 s");
  }

  @Test
  void twoJobsOnOneNodeGetDisjointCpusAndAThirdWaits() throws Exception {
    cluster.startMom("big", "0-1");
    cluster.qmgr("set node big properties = big");
    String script = "grep Cpus_allowed_list /proc/self/status\nsleep 3021\n";
    String a = cluster.submit(work, script, "-l", "nodes=1:ppn=1:big", "-j", "oe");
    String b = cluster.submit(work, script, "-l", "nodes=1:ppn=1:big", "-j", "oe");
    String c = cluster.submit(work, script, "-l", "nodes=1:ppn=1:big", "-j", "oe");
    Job ja = cluster.await(a, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    Job jb = cluster.await(b, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    List<Integer> cpusA = ja.getExecNodes(0).getCpusList();
    List<Integer> cpusB = jb.getExecNodes(0).getCpusList();
    assertEquals(
        List.of(List.of(0), List.of(1)),
        List.of(cpusA, cpusB).stream().sorted((x, y) -> x.get(0) - y.get(0)).toList());
    TestCluster.sleep(1500);
    assertEquals(JobState.QUEUED, cluster.job(c).getState(), "no CPU left for the third");
    awaitTrue(() -> output(ja).contains("Cpus_allowed_list"), Duration.ofSeconds(10));
    assertEquals("Cpus_allowed_list:\t" + cpusA.get(0), output(ja).lines().findFirst().orElse(""));
    assertEquals(0, cluster.cli("qdel", a).exit());
    Job jc = cluster.await(c, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    assertEquals(cpusA, jc.getExecNodes(0).getCpusList(), "the freed CPU goes to the waiting job");
    cluster.cli("qdel", b);
    cluster.cli("qdel", c);
    cluster.await(c, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(10));
    cluster.qmgr("set node big state = offline");
  }

  @Test
  void aSisterWhoseMomDiesTakesItsJobDownAndNothingStaysBehind() throws Exception {
    cluster.startMom("k1", "0");
    cluster.startMom("k2", "1");
    cluster.qmgr("set node k1 properties = pair");
    cluster.qmgr("set node k2 properties = pair");
    String ended = cluster.submit(work, "sleep 3031\n", "-l", "nodes=2:ppn=1:pair", "-r", "n");
    Job job = cluster.await(ended, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    assertEquals(List.of("k1", "k2"), nodes(job));
    cluster.killMom("k2");
    cluster.awaitNode("k2", "down");
    Job lost =
        cluster.await(ended, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(15));
    assertEquals(-4, lost.getExitStatus(), "not rerunnable: ended as lost");
    assertTrue(lost.getComment().contains("k2"), lost.getComment());
    awaitTrue(
        () -> !cgroupOn("k1", ended) && Processes.matching("sleep 3031").isEmpty(),
        Duration.ofSeconds(10));

    // The dead mom's node still has the job's cgroup; its mom, back, is told to drop it.
    assertTrue(cgroupOn("k2", ended), "left behind while the mom was dead");
    cluster.startMom("k2", "1");
    awaitTrue(() -> !cgroupOn("k2", ended), Duration.ofSeconds(20));

    String requeued = cluster.submit(work, "sleep 3032\n", "-l", "nodes=2:ppn=1:pair");
    cluster.await(requeued, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    cluster.killMom("k2");
    cluster.await(requeued, j -> j.getState() == JobState.QUEUED, Duration.ofSeconds(15));
    // a queued job's comment says why it waits now; why it went back is in its history
    String history = cluster.cli("tracejob", requeued).out();
    assertTrue(history.contains("Job requeued"), history);
    awaitTrue(() -> Processes.matching("sleep 3032").isEmpty(), Duration.ofSeconds(10));
    cluster.cli("qdel", requeued);
    cluster.startMom("k2", "1");
    awaitTrue(() -> !cgroupOn("k2", requeued), Duration.ofSeconds(20));
  }

  @Test
  void aMotherSuperiorKilledAndRestartedFindsItsJobAgainAndReportsItsEnd() throws Exception {
    cluster.startMom("r1", "0");
    cluster.startMom("r2", "1");
    cluster.qmgr("set node r1 properties = restart");
    cluster.qmgr("set node r2 properties = restart");
    cluster.qmgr("set server node_check_rate = 60"); // back before the server would give up
    // The job ends when the test says so: only once its mom is back, however long that takes.
    Path go = work.resolve("restart-go");
    try {
      String id =
          cluster.submit(
              work,
              "while [ ! -e " + go + " ]; do sleep 0.1; done\nexit 7\n",
              "-l",
              "nodes=2:ppn=1:restart",
              "-j",
              "oe");
      Job running = cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
      assertEquals(List.of("r1", "r2"), nodes(running));
      cluster.killMom("r1");
      assertTrue(cgroupOn("r1", id), "the job runs on without its mom");
      cluster.launchMom("r1", "0");
      awaitTrue(
          () -> cluster.momLog("r1").contains("job " + id + " found running again"),
          Duration.ofSeconds(60),
          () -> cluster.momLog("r1"));
      Files.createFile(go);
      Job ended =
          cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(40));
      assertEquals(7, ended.getExitStatus(), "the exit status is the script's: " + ended);
      assertEquals(running.getSessionId(), ended.getSessionId());
      awaitTrue(() -> !cluster.hasCgroups(id), Duration.ofSeconds(10));
    } finally {
      Files.deleteIfExists(go);
      cluster.qmgr("set server node_check_rate = 4");
      cluster.qmgr("set node r1 state = offline");
      cluster.qmgr("set node r2 state = offline");
    }
  }

  @Test
  void aMomStoppedWithSigtermLeavesTheClusterBeforeItExits() throws Exception {
    cluster.startMom("s1", "0");
    cluster.qmgr("set node s1 state = offline");
    long before = System.nanoTime();
    cluster.stopMom("s1");
    System.out.printf(
        "a mom stopped with SIGTERM exited %.2f s later%n", (System.nanoTime() - before) / 1e9);
    // Pekko logs it as the mom exits if the others never heard that it leaves (its transport
    // gone before it could tell them): a stop then took 10 s and the others took it for lost.
    String log = cluster.momLog("s1");
    assertFalse(log.contains("[cluster-exiting] timed out"), log);
  }

  private static List<String> nodes(Job job) {
    return job.getExecNodesList().stream().map(NodeAllocation::getNode).toList();
  }

  private static boolean cgroupOn(String node, String id) {
    try {
      return cluster.cpusetJobCgroups().getOrDefault(node, List.of()).contains(id);
    } catch (IOException e) {
      return true;
    }
  }
}
