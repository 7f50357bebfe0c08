package dev.berth.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Commands in a virtual machine with a Linux kernel of its own (ops/vm): cgroup v2 only, this
 * host's root shared read-only, its own /tmp, /run and, with a disk, /var/tmp. Each run boots a
 * fresh guest and leaves nothing behind on this host but what the command wrote to {@code writable}
 * folders.
 */
final class Guest {
  static final Path VM = TestCluster.ROOT.resolve("ops/vm");

  /** How many times longer daemons take to start in a guest than here (TimeScale). */
  static final int EMULATED = 10;

  /** The command's exit status (124: it ran past the timeout) and its output, stderr included. */
  record Result(int exit, String output, Duration took) {}

  private Guest() {}

  /**
   * Why guests cannot start here, or null where they can: ops/vm prepare fetches qemu and Debian's
   * kernel (apt), once per machine.
   */
  static String unavailable() {
    TestCluster.Result r = TestCluster.exec(TestCluster.ROOT, List.of(VM.toString(), "prepare"));
    return r.exit() == 0 ? null : "ops/vm prepare failed (" + r.exit() + "): " + r.err();
  }

  /**
   * Runs {@code command} as root in a guest with {@code options} of ops/vm run ({@code --disk},
   * {@code --writable} ...); its output goes to {@code log} as it comes, then into the result.
   */
  static Result run(Duration timeout, Path log, List<String> options, List<String> command)
      throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(VM.toString(), "run"));
    argv.addAll(List.of("--timeout", Long.toString(timeout.toSeconds())));
    argv.addAll(options);
    argv.add("--");
    argv.addAll(command);
    long start = System.nanoTime();
    Process vm =
        new ProcessBuilder(argv)
            .directory(TestCluster.ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // ops/vm ends the guest at the timeout; the margin is for its boot and shutdown
    if (!vm.waitFor(timeout.toSeconds() + 60, TimeUnit.SECONDS)) {
      vm.destroy();
      vm.waitFor();
    }
    return new Result(
        vm.exitValue(), Files.readString(log), Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Runs the JUnit classes named in a guest (GuestTests, in one JVM there), with this JVM's class
   * path and the mom module's test classes, in the mom module's folder: its tests find the starter
   * and the native library there. The guest JVM's crash report, if any, goes to {@code scratch}.
   */
  static Result runTests(Duration timeout, Path scratch, List<String> options, List<String> classes)
      throws IOException, InterruptedException {
    String classPath =
        System.getProperty("java.class.path")
            + ":"
            + TestCluster.ROOT.resolve("mom/target/test-classes");
    List<String> command =
        new ArrayList<>(
            List.of(
                "java",
                "-Dberth.root=" + TestCluster.ROOT,
                "-Dberth.native="
                    + TestCluster.ROOT.resolve("mom/target/native/libberth-native.so"),
                "-Dberth.it.time-scale=" + EMULATED,
                "-XX:ErrorFile=" + scratch.resolve("hs_err_%p.log"),
                "-cp",
                classPath,
                GuestTests.class.getName()));
    command.addAll(classes);
    List<String> all = new ArrayList<>(options);
    all.addAll(List.of("--cwd", TestCluster.ROOT.resolve("mom").toString()));
    // the daemons compile with C1 alone, as in the host's runs: C2's work costs more than it wins
    // back in a short life, all the more emulated
    all.addAll(List.of("--env", "JAVA=" + TestCluster.ROOT.resolve("it/src/test/bin/java-c1")));
    all.addAll(List.of("--writable", scratch.toString()));
    return run(timeout, scratch.resolve("guest.log"), all, command);
  }
}
