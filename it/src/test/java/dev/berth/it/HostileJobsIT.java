package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.daemon.BerthHome;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The hostile-job corpus (ops/hostile) at its small size: berth-bob's jobs leave deep and wide
 * trees, fork storms, socket floods, huge environments and floods of output on two mom processes
 * with cgroups on, while berth-alice's two-node job runs and her qstat is timed. Every daemon must
 * still be the same process afterwards, alice's jobs must succeed, and nothing of bob's may be
 * left: no process, cgroup or TMPDIR. The seed is printed; {@code -Dberth.hostile.seed=N} repeats a
 * run.
 */
// Alone: its fork storm takes every CPU, and it waits until berth-bob has no process left
// on the host, which other classes' jobs as bob would hold up.
@Alone
@Tag("integration")
class HostileJobsIT {
  private static final Path CORPUS = TestCluster.ROOT.resolve("ops/hostile");
  private static MultiNodeCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(TestUsers.ALICE, TestUsers.BOB);
    JobTools.ensureOnPath();
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", "0-1", "--node-hostname");
    cluster.startMom("b", "0-1", "--node-hostname");
    cluster.qmgr("set server cgroup_enable = True");
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.deleteUnfinished();
      cluster.close();
    }
  }

  @Test
  void theCorpusLeavesTheDaemonsUpAndAnotherUsersJobsWorking() throws Exception {
    long seed = Long.getLong("berth.hostile.seed", new Random().nextInt(1 << 20));
    System.out.println("HostileJobsIT: seed " + seed);
    long serverPid = cluster.server.pid();
    Map<String, Long> moms = new LinkedHashMap<>();
    for (String node : List.of("a", "b")) {
      moms.put(node, cluster.momPid(node));
    }
    Path aliceWork = MultiNodeCluster.workFor(TestUsers.ALICE, "hostile-alice-");
    Path bobWork = MultiNodeCluster.workFor(TestUsers.BOB, "hostile-bob-");

    String during = cluster.submitAs(TestUsers.ALICE, aliceWork, victimScript(8), "-l", "nodes=2");
    cluster.await(during, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(30));
    List<String> hostile = submitCorpus(bobWork, seed);

    List<Long> qstatMillis = new CopyOnWriteArrayList<>();
    AtomicBoolean attacking = new AtomicBoolean(true);
    Thread timer = new Thread(() -> timeQstat(aliceWork, attacking, qstatMillis));
    timer.start();
    try {
      for (String id : hostile) {
        Job job = cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofMinutes(3));
        assertEquals(0, job.getExitStatus(), "the attack " + job.getName() + " ran to its end");
      }
    } finally {
      attacking.set(false);
      timer.join();
    }
    String after = cluster.submitAs(TestUsers.ALICE, aliceWork, victimScript(1), "-l", "nodes=2");
    for (String id : List.of(during, after)) {
      Job job = cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofMinutes(2));
      assertEquals(0, job.getExitStatus(), "alice's job " + id + ": " + job.getComment());
      assertTrue(
          MultiNodeCluster.output(job).contains("rounds=ok"),
          "alice's job " + id + " ran its tasks");
    }

    assertTrue(cluster.server.alive(), "the server is still up: " + cluster.server.log());
    assertEquals(serverPid, cluster.server.pid(), "the server did not restart");
    for (Map.Entry<String, Long> m : moms.entrySet()) {
      assertTrue(
          cluster.momAlive(m.getKey()),
          "the mom of " + m.getKey() + ": " + cluster.momLog(m.getKey()));
      assertEquals(
          m.getValue(),
          cluster.momPid(m.getKey()),
          "the mom of " + m.getKey() + " did not restart");
    }
    assertNothingOfBobLeft(hostile);
    for (String node : moms.keySet()) {
      long refusals = cluster.momLog(node).lines().filter(l -> l.contains("refused")).count();
      assertTrue(refusals < 200, refusals + " refusal lines in the log of mom " + node);
    }
    TestCluster.exec(cluster.home, List.of("rm", "-rf", aliceWork.toString(), bobWork.toString()));
    Collections.sort(qstatMillis);
    System.out.printf(
        "HostileJobsIT: alice's qstat during the attack: %d calls, median %d ms, p99 %d ms%n",
        qstatMillis.size(),
        qstatMillis.get(qstatMillis.size() / 2),
        qstatMillis.get((int) Math.ceil(qstatMillis.size() * 0.99) - 1));
  }

  /** Every script of the corpus, submitted by bob at the small size with {@code seed}. */
  private static List<String> submitCorpus(Path work, long seed) throws IOException {
    List<Path> scripts;
    try (Stream<Path> files = Files.list(CORPUS)) {
      scripts = files.filter(p -> p.toString().endsWith(".sh")).sorted().toList();
    }
    assertTrue(scripts.size() >= 6, "the corpus in " + CORPUS);
    String vars =
        "HOSTILE_SIZE=small,HOSTILE_SEED="
            + seed
            + ",HOSTILE_BIN="
            + TestCluster.ROOT.resolve("ops/bin")
            + ",HOSTILE_SERVER="
            + cluster.socket;
    List<String> ids = new ArrayList<>();
    for (Path script : scripts) {
      ids.add(
          cluster.submitAs(
              TestUsers.BOB, work, Files.readString(script), "-v", vars, "-o", work + "/"));
    }
    return ids;
  }

  /** A job of alice's on both nodes that runs a task on each, {@code rounds} times a second. */
  private static String victimScript(int rounds) {
    return "#!/bin/sh\n"
        + "for i in $(seq "
        + rounds
        + "); do\n"
        + "  pbsdsh -u hostname >/dev/null || { echo rounds=failed; exit 1; }\n"
        + "  sleep 1\n"
        + "done\n"
        + "echo rounds=ok\n";
  }

  private static void timeQstat(Path work, AtomicBoolean attacking, List<Long> millis) {
    while (attacking.get()) {
      long start = System.nanoTime();
      TestCluster.Result r =
          TestCluster.exec(
              work,
              List.of(
                  "runuser",
                  "-u",
                  TestUsers.ALICE,
                  "--",
                  "env",
                  "BERTH_SERVER=" + cluster.socket,
                  TestCluster.ROOT.resolve("ops/bin/qstat").toString()));
      millis.add((System.nanoTime() - start) / 1_000_000);
      assertEquals(0, r.exit(), "alice's qstat during the attack: " + r);
    }
  }

  /** No process, cgroup or TMPDIR of bob's jobs is left on either node, once their cleanup ran. */
  private static void assertNothingOfBobLeft(List<String> hostile) throws IOException {
    Path tmp = new BerthHome(cluster.home).jobTmp();
    MultiNodeCluster.awaitTrue(
        () ->
            TestCluster.exec(cluster.home, List.of("pgrep", "-u", TestUsers.BOB)).exit() == 1
                && hostile.stream().noneMatch(cluster::hasCgroups)
                && hostile.stream()
                    .noneMatch(
                        id ->
                            Files.exists(tmp.resolve("a").resolve(id))
                                || Files.exists(tmp.resolve("b").resolve(id))),
        Duration.ofSeconds(60),
        () ->
            "bob's processes: "
                + TestCluster.exec(cluster.home, List.of("pgrep", "-a", "-u", TestUsers.BOB))
                + " cgroups: "
                + safeCgroups()
                + " mom a: "
                + cluster.momLog("a"));
  }

  private static String safeCgroups() {
    try {
      return cluster.cpusetJobCgroups().toString();
    } catch (IOException e) {
      return e.toString();
    }
  }
}
