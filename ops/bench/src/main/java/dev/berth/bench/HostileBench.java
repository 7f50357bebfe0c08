package dev.berth.bench;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The hostile-job corpus (ops/hostile) at its full size, one attack at a time, as berth-bob on two
 * moms with cgroups on, while berth-alice runs a two-node job of tasks and her qstat is timed. For
 * each attack it prints how long the job ran, how long the mom took to leave nothing of it on the
 * node (TMPDIR removed), alice's qstat median and p99 during it, and the peak resident memory of
 * the server and the moms so far. It fails unless every attack ran to its end, every alice job
 * succeeded and every daemon is still the process it started as. {@code HOSTILE_SEED=N} in the
 * environment repeats a run; {@code HOSTILE_SIZE=small} runs the sizes CI runs.
 */
final class HostileBench {
  private static final String ATTACKER = "berth-bob";
  private static final String VICTIM = "berth-alice";

  private HostileBench() {}

  static void run(Path root) throws Exception {
    Map<String, String> env = System.getenv();
    long seed =
        env.containsKey("HOSTILE_SEED")
            ? Long.parseLong(env.get("HOSTILE_SEED"))
            : new Random().nextInt(1 << 20);
    String size = env.getOrDefault("HOSTILE_SIZE", "full");
    List<Path> corpus;
    try (Stream<Path> files = Files.list(root.resolve("ops/hostile"))) {
      corpus = files.filter(p -> p.toString().endsWith(".sh")).sorted().toList();
    }
    try (MomCluster cluster = new MomCluster(root, Trust.TLS)) {
      if (!VICTIM.equals(cluster.user())) {
        throw new IllegalStateException("the hostile benchmark needs the users of ops/test");
      }
      cluster.start();
      cluster.startMom("a", "0-1");
      cluster.startMom("b", "0-1");
      cluster.qmgr("set server cgroup_enable = True");
      Path attackerWork = Files.createTempDirectory(Path.of("/tmp"), "hostile-bob-");
      new ProcessBuilder("chown", ATTACKER, attackerWork.toString()).start().waitFor();
      List<Long> pids = List.of(cluster.serverPid(), cluster.momPid("a"), cluster.momPid("b"));
      System.out.printf(
          "%nhostile jobs (ops/hostile, %s size, seed %d): as %s on two moms, cgroups on, while %s"
              + " runs tasks on both%n",
          size, seed, ATTACKER, VICTIM);
      System.out.printf(
          "%-24s %6s %8s %8s %9s %9s %10s %10s%n",
          "attack", "exit", "ran s", "clean s", "qstat p50", "qstat p99", "server MiB", "moms MiB");
      try {
        for (Path script : corpus) {
          attack(cluster, script, attackerWork, size, seed, pids);
        }
      } finally {
        new ProcessBuilder("rm", "-rf", attackerWork.toString()).start().waitFor();
      }
      System.out.println(
          "(MiB: peak resident memory of the process so far, VmHWM; qstat: ms, alice's, during the"
              + " attack)");
    }
  }

  private static void attack(
      MomCluster cluster, Path script, Path work, String size, long seed, List<Long> pids)
      throws Exception {
    String victim =
        cluster.submit(
            "#!/bin/sh\nwhile :; do pbsdsh -u hostname >/dev/null || exit 1; sleep 1; done\n",
            "-l",
            "nodes=2,walltime=01:00:00");
    awaitState(cluster, victim, JobState.RUNNING);
    List<Long> qstat = new CopyOnWriteArrayList<>();
    AtomicBoolean attacking = new AtomicBoolean(true);
    Thread timer = new Thread(() -> timeQstat(cluster, attacking, qstat));
    timer.start();
    long begin = System.nanoTime();
    Job done;
    try {
      String id =
          cluster.submitAs(
              ATTACKER,
              work,
              Files.readString(script),
              "-v",
              "HOSTILE_SIZE="
                  + size
                  + ",HOSTILE_SEED="
                  + seed
                  + ",HOSTILE_BIN="
                  + cluster.root().resolve("ops/bin")
                  + ",HOSTILE_SERVER="
                  + cluster.socket(),
              "-o",
              work + "/");
      done = awaitState(cluster, id, JobState.COMPLETED);
    } finally {
      attacking.set(false);
      timer.join();
    }
    double ran = (System.nanoTime() - begin) / 1e9;
    long cleanBegin = System.nanoTime();
    awaitGone(cluster, done);
    double clean = (System.nanoTime() - cleanBegin) / 1e9;
    Job victimNow = cluster.job(victim);
    if (victimNow.getState() != JobState.RUNNING || !survived(pids)) {
      throw new IllegalStateException(
          "during "
              + script.getFileName()
              + ": alice's job "
              + victimNow.getState()
              + " "
              + victimNow.getComment()
              + (survived(pids) ? "" : "; a daemon is gone"));
    }
    cluster.cli("qdel", victim);
    awaitState(cluster, victim, JobState.COMPLETED);
    if (done.getExitStatus() != 0) {
      throw new IllegalStateException(
          script.getFileName() + " did not run to its end: " + done.getComment());
    }
    Collections.sort(qstat);
    System.out.printf(
        "%-24s %6d %8.1f %8.1f %9d %9d %10d %10d%n",
        script.getFileName(),
        done.getExitStatus(),
        ran,
        clean,
        at(qstat, 0.5),
        at(qstat, 0.99),
        peakMiB(pids.get(0)),
        Math.max(peakMiB(pids.get(1)), peakMiB(pids.get(2))));
  }

  private static Job awaitState(MomCluster cluster, String id, JobState state) throws Exception {
    long deadline = System.currentTimeMillis() + 3_600_000;
    while (System.currentTimeMillis() < deadline) {
      Job job = cluster.job(id);
      if (job.getState() == state) {
        return job;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(id + " did not become " + state);
  }

  /** Waits until the job's TMPDIR is gone from every node. */
  private static void awaitGone(MomCluster cluster, Job job) throws Exception {
    Path base = cluster.jobTmp();
    long deadline = System.currentTimeMillis() + 3_600_000;
    while (Files.exists(base.resolve("a").resolve(job.getId()))
        || Files.exists(base.resolve("b").resolve(job.getId()))) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("the TMPDIR of " + job.getId() + " was not removed");
      }
      Thread.sleep(200);
    }
  }

  private static void timeQstat(MomCluster cluster, AtomicBoolean attacking, List<Long> millis) {
    while (attacking.get()) {
      long start = System.nanoTime();
      try {
        cluster.shell("qstat >/dev/null", Map.of());
      } catch (Exception e) {
        throw new IllegalStateException("alice's qstat during the attack failed", e);
      }
      millis.add((System.nanoTime() - start) / 1_000_000);
    }
  }

  private static boolean survived(List<Long> pids) {
    return pids.stream()
        .allMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
  }

  private static long at(List<Long> sorted, double quantile) {
    if (sorted.isEmpty()) {
      return -1;
    }
    return sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * quantile) - 1));
  }

  /** The process's peak resident memory (VmHWM) in MiB. */
  private static long peakMiB(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }
}
