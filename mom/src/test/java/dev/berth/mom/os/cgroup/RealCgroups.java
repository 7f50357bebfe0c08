package dev.berth.mom.os.cgroup;

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

  /** Starts {@code command} through berth-starter, joined to every cgroup of {@code job}. */
  static Process start(JobCgroup job, Path dir, String name, List<String> command)
      throws IOException {
    List<String> argv = new ArrayList<>(List.of(STARTER.toString()));
    argv.addAll(List.of("--status", dir.resolve(name + ".status").toString()));
    argv.addAll(List.of("--stdout", dir.resolve(name + ".out").toString(), "--join"));
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
}
