package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Helpers for the integration tests on the real kernel: a unique root, jobs run through the real
 * berth-starter, and a sweep that leaves no cgroup of the test behind whatever happened.
 */
final class RealCgroups {
  static final Path STARTER = Path.of("target/native/berth-starter").toAbsolutePath();
  static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
  static final Path SELF = Path.of("/proc/self/cgroup");

  private RealCgroups() {}

  /** A top level no other test or mom uses. */
  /** Ends and removes every job cgroup of {@code driver}, then its root, which must go too. */
  static void clear(CgroupDriver driver, java.time.Duration timeout) throws IOException {
    for (String id : driver.jobs()) {
      JobCgroup job = driver.find(id).orElseThrow();
      job.killAll(timeout);
      job.remove(timeout);
    }
    assertTrue(driver.removeRoot());
  }

  static String uniqueTop() {
    return "berth-test-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  static Mounts mounts() throws IOException {
    return Mounts.read(MOUNTINFO, SELF);
  }

  /** How a job process ended (the starter's status line) and what it printed. */
  record Run(String status, String output) {}

  /** The uid and gid of the user nobody, as which some tests run their job processes. */
  static final int NOBODY = 65534;

  /** Starts {@code command} through berth-starter, joined to every cgroup of {@code job}. */
  static Process start(JobCgroup job, Path dir, String name, List<String> command)
      throws IOException {
    return start(
        job, dir, name, List.of("--stdout", dir.resolve(name + ".out").toString()), command);
  }

  /**
   * Starts {@code command} as nobody, as a job of an ordinary user runs, with its output thrown
   * away: it may not write to the test's directory.
   */
  static Process startAsNobody(JobCgroup job, Path dir, String name, List<String> command)
      throws IOException {
    String id = Integer.toString(NOBODY);
    List<String> as = List.of("--uid", id, "--gid", id, "--cwd", "/", "--stdout", "/dev/null");
    return start(job, dir, name, as, command);
  }

  private static Process start(
      JobCgroup job, Path dir, String name, List<String> options, List<String> command)
      throws IOException {
    List<String> argv = new ArrayList<>(List.of(STARTER.toString()));
    argv.addAll(List.of("--status", dir.resolve(name + ".status").toString()));
    argv.addAll(options);
    argv.add("--join");
    for (Path procs : job.procsFiles()) {
      argv.addAll(List.of("--cgroup", procs.toString()));
    }
    argv.add("--");
    argv.addAll(command);
    Process p =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile())
            .start();
    try (var stdin = p.getOutputStream()) { // the starter's input: an environment, no script
      byte[] env = "PATH=/usr/bin:/bin\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      stdin.write((env.length + " -1\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      stdin.write(env);
    }
    return p;
  }

  /** Runs {@code command} in the job's cgroups to its end. */
  /**
   * A fork storm in {@code job} whose cap on tasks is {@code cap}: perl forks up to 100 children
   * until fork fails and counts them, which must be more than none and fewer than the cap; a
   * process outside the jobs still forks.
   */
  static void stormStopsAtTheCap(JobCgroup job, Path dir, int cap)
      throws IOException, InterruptedException {
    Run storm =
        run(
            job,
            dir,
            "storm",
            List.of(
                "/usr/bin/perl",
                "-e",
                "my @kids; for (1 .. 100) { my $p = fork; last unless defined $p;"
                    + " if ($p == 0) { sleep 60; exit } push @kids, $p }"
                    + " print scalar(@kids), \" children\\n\"; kill 'KILL', @kids;"));
    assertTrue(storm.status().startsWith("exit 0"), storm.status() + " / " + storm.output());
    int children = Integer.parseInt(storm.output().split(" ")[0]);
    assertTrue(children > 0 && children < cap, storm.output());
    Process outside = new ProcessBuilder("/bin/true").start();
    assertTrue(outside.waitFor() == 0, "the host still forks");
  }

  static Run run(JobCgroup job, Path dir, String name, List<String> command)
      throws IOException, InterruptedException {
    Process p = start(job, dir, name, command);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), name + " did not end");
    return new Run(
        Files.readString(dir.resolve(name + ".status")).strip(),
        Files.readString(dir.resolve(name + ".out")));
  }

  /** Waits until {@code job} holds at least {@code count} processes. */
  static List<Long> awaitProcesses(JobCgroup job, int count) throws IOException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    List<Long> pids = new ArrayList<>(ControlFiles.pids(job.procsFiles()));
    while (pids.size() < count && System.nanoTime() < deadline) {
      Teardown.sleep(10);
      pids = new ArrayList<>(ControlFiles.pids(job.procsFiles()));
    }
    return pids;
  }

  /** The session id of a process, or -1 if it is gone. */
  static long session(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[3]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * The state of a process as /proc shows it: R running, S sleeping, D in uninterruptible sleep, Z
   * a zombie; '?' if it is gone.
   */
  static char state(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return s.charAt(s.lastIndexOf(')') + 2);
    } catch (IOException e) {
      return '?';
    }
  }

  /** The real uid of a process, or -1 if it is gone. */
  static long uid(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("Uid:")) {
          return Long.parseLong(line.split("\\s+")[1]);
        }
      }
    } catch (IOException e) {
      // gone
    }
    return -1;
  }

  /**
   * Spins on this thread until it has used {@code cpuNanos} of CPU time: a wait that ends by what
   * happened (this thread ran), so that a process that should not run had every chance to.
   */
  static void burnCpu(long cpuNanos) {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long until = threads.getCurrentThreadCpuTime() + cpuNanos;
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (threads.getCurrentThreadCpuTime() < until) {
      assertTrue(System.nanoTime() < deadline, "this thread got no CPU for 30 s");
    }
  }

  /** Waits until the job has used more CPU time than {@code nanos}; false after 10 s. */
  static boolean awaitCpu(JobCgroup job, long nanos) throws IOException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (job.usage().cpuNanos() <= nanos) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Teardown.sleep(10);
    }
    return true;
  }

  /** What the kernel says of a job cgroup's freezer (freezer.state, cgroup.events). */
  interface FreezerState {
    boolean frozen() throws IOException;
  }

  /**
   * A job of nobody's with a busy loop and a sleep is frozen: the kernel says so, every process
   * shows the state of a frozen one ({@code frozenState}: D in v1, whose frozen processes wait in
   * uninterruptible sleep; S in v2, whose wait in an interruptible one), and the job uses no CPU
   * while this thread burns some. Thawed, it runs again; frozen once more, it is killed while
   * frozen, and nothing of it is left.
   */
  static void freezeThawAndKillFrozen(
      JobCgroup job, Path dir, FreezerState kernel, char frozenState) throws Exception {
    assertTrue(job.canFreeze());
    Process starter =
        startAsNobody(
            job,
            dir,
            "frozen",
            List.of("/bin/sh", "-c", "(while :; do :; done) & sleep 300 & wait"));
    // the starter (root), the job's shell, the busy subshell and the sleep (nobody)
    List<Long> pids = awaitProcesses(job, 4);
    assertEquals(4, pids.size(), pids.toString());
    assertEquals(3, pids.stream().filter(p -> uid(p) == NOBODY).count(), "the job runs as nobody");

    assertTrue(job.freeze(Duration.ofSeconds(5)));
    assertTrue(kernel.frozen());
    for (long pid : pids) {
      assertEquals(frozenState, state(pid), pid + " is not frozen");
    }
    long frozenCpu = job.usage().cpuNanos();
    burnCpu(200_000_000L);
    assertEquals(frozenCpu, job.usage().cpuNanos(), "the frozen busy loop ran");

    job.thaw();
    assertFalse(kernel.frozen());
    assertTrue(awaitCpu(job, frozenCpu + 100_000_000L), "the thawed busy loop does not run");

    assertTrue(job.freeze(Duration.ofSeconds(5)));
    assertTrue(job.killAll(Duration.ofSeconds(5)), "killed while frozen");
    assertTrue(job.empty());
    for (long pid : pids) {
      assertFalse(alive(pid), pid + " is still alive");
    }
    assertTrue(starter.waitFor(5, TimeUnit.SECONDS));
    job.remove(Duration.ofSeconds(5));
    for (Path procs : job.procsFiles()) {
      assertFalse(Files.exists(procs.getParent()), procs.getParent() + " is left");
    }
  }

  /** Whether the process exists and is not a zombie. */
  static boolean alive(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return !s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Kills every process in any cgroup named {@code top} (at any depth up to 6 in any mounted
   * hierarchy) and removes those cgroups, deepest first.
   */
  static void sweep(String top) throws IOException {
    for (Mounts.Mount m : mounts().all()) {
      List<Path> found;
      try (Stream<Path> walk = Files.walk(m.mountPoint(), 6)) {
        found = walk.filter(p -> p.getFileName().toString().equals(top)).toList();
      }
      for (Path dir : found) {
        List<Path> tree;
        try (Stream<Path> walk = Files.walk(dir)) {
          tree =
              walk.filter(Files::isDirectory)
                  .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
                  .toList();
        }
        for (Path d : tree) {
          for (long pid : ControlFiles.pids(d.resolve("cgroup.procs"))) {
            Kernel.LINUX.kill(pid);
          }
          Path state = d.resolve("freezer.state");
          if (Files.exists(state)) {
            Kernel.LINUX.write(state, "THAWED");
          }
        }
        Teardown.remove(Kernel.LINUX, tree, Duration.ofSeconds(5));
      }
    }
  }

  /**
   * A stand-in GPU at {@code file}: NVIDIA's major 195 with {@code minor}, which no driver serves
   * here, mode 0666 so any user passes the file permissions. Opening it gives ENXIO where the
   * devices cgroup lets it through and EPERM where it denies it.
   */
  static void standInGpu(Path file, int minor) throws IOException, InterruptedException {
    Process mknod =
        new ProcessBuilder(
                "mknod", "-m", "666", file.toString(), "c", "195", Integer.toString(minor))
            .inheritIO()
            .start();
    assertEquals(0, mknod.waitFor(), "mknod " + file);
  }
}
