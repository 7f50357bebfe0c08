package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * Commands as a shell user runs them: timed one call at a time, in shell loops, and in many loops
 * at once. Every call must exit 0, else the benchmark ends with the command and its status.
 */
final class Commands {
  /** Wall time per call in milliseconds, and the peak resident size of one call. */
  record Timing(String command, int runs, double median, double p90, double min, long peakKb) {}

  /** Many loops at once: their calls per second and how long each loop took. */
  record Parallel(
      int loops, int callsEach, double callsPerSecond, double medianLoop, double maxLoop) {}

  private final Path cwd;
  private final Map<String, String> env;

  /**
   * @param cwd where the commands run
   * @param env variables added to this process's environment (PATH first for Berth's commands)
   */
  Commands(Path cwd, Map<String, String> env) {
    this.cwd = cwd;
    this.env = new HashMap<>(env);
  }

  /** Commands that print to /dev/null and must succeed. */
  private ProcessBuilder builder(List<String> argv) {
    ProcessBuilder pb = new ProcessBuilder(resolved(argv)).directory(cwd.toFile());
    pb.environment().putAll(env);
    return pb.redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.INHERIT);
  }

  /**
   * {@code argv} with its program found on the commands' PATH, as a shell would (ProcessBuilder
   * looks on this process's own).
   */
  private List<String> resolved(List<String> argv) {
    String program = argv.get(0);
    if (program.contains("/")) {
      return argv;
    }
    for (String dir : env.getOrDefault("PATH", System.getenv("PATH")).split(":")) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (java.nio.file.Files.isExecutable(candidate)) {
        List<String> found = new ArrayList<>(argv);
        found.set(0, candidate.toString());
        return found;
      }
    }
    return argv;
  }

  private static void check(List<String> argv, int exit) {
    if (exit != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " exited " + exit);
    }
  }

  /** Runs {@code argv} once and returns what it printed on stdout. */
  String output(String... argv) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(resolved(List.of(argv))).directory(cwd.toFile());
    pb.environment().putAll(env);
    Process p = pb.redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes());
    check(List.of(argv), p.waitFor());
    return out;
  }

  /**
   * Times {@code runs} calls of each command, interleaved; {@code argv} is asked for each call's
   * command line (a job to delete is a new one each time).
   */
  /**
   * Runs each command {@code runs} times, untimed and in turn, checking that each succeeds: a
   * server's JIT compiles the paths a command takes on its first calls, which a running cluster has
   * compiled long before.
   */
  void warm(Map<String, Supplier<List<String>>> commands, int runs)
      throws IOException, InterruptedException {
    for (int r = 0; r < runs; r++) {
      for (Supplier<List<String>> command : commands.values()) {
        List<String> argv = command.get();
        check(argv, builder(argv).start().waitFor());
      }
    }
  }

  List<Timing> time(Map<String, Supplier<List<String>>> commands, int runs)
      throws IOException, InterruptedException {
    List<String> names = new ArrayList<>(commands.keySet());
    double[][] samples = new double[names.size()][runs];
    for (int r = 0; r < runs; r++) {
      for (int c = 0; c < names.size(); c++) {
        List<String> argv = commands.get(names.get(c)).get();
        long begin = System.nanoTime();
        int exit = builder(argv).start().waitFor();
        samples[c][r] = (System.nanoTime() - begin) / 1e6;
        check(argv, exit);
      }
    }
    List<Timing> results = new ArrayList<>();
    for (int c = 0; c < names.size(); c++) {
      double[] s = samples[c].clone();
      Arrays.sort(s);
      long peak = peakKb(commands.get(names.get(c)).get());
      results.add(new Timing(names.get(c), runs, s[runs / 2], s[(int) (runs * 0.9)], s[0], peak));
    }
    return results;
  }

  /** The peak resident size of one call, as GNU time reports it; -1 without /usr/bin/time. */
  private long peakKb(List<String> argv) throws IOException, InterruptedException {
    if (!java.nio.file.Files.isExecutable(Path.of("/usr/bin/time"))) {
      return -1;
    }
    List<String> timed = new ArrayList<>(List.of("/usr/bin/time", "-f", "%M", "-o", "/dev/stdout"));
    timed.addAll(resolved(argv));
    ProcessBuilder pb = new ProcessBuilder(timed).directory(cwd.toFile());
    pb.environment().putAll(env);
    Process p = pb.redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String[] lines = new String(p.getInputStream().readAllBytes()).strip().split("\n");
    check(argv, p.waitFor());
    return Long.parseLong(lines[lines.length - 1].strip());
  }

  /** Seconds that {@code count} calls of {@code command} (a shell line) take in one shell loop. */
  double loop(String command, int count) throws IOException, InterruptedException {
    List<String> argv = List.of("sh", "-c", loopScript(command, count));
    long begin = System.nanoTime();
    int exit = builder(argv).start().waitFor();
    double seconds = (System.nanoTime() - begin) / 1e9;
    check(argv, exit);
    return seconds;
  }

  private static String loopScript(String command, int count) {
    return "i=0; while [ $i -lt "
        + count
        + " ]; do "
        + command
        + " >/dev/null || exit 1; i=$((i+1)); done";
  }

  /** {@code loops} shell loops at once, each calling {@code command} {@code calls} times. */
  Parallel parallel(String command, int loops, int calls) throws Exception {
    List<String> argv = List.of("sh", "-c", loopScript(command, calls));
    ConcurrentLinkedQueue<Double> durations = new ConcurrentLinkedQueue<>();
    List<Thread> waiters = new ArrayList<>();
    long begin = System.nanoTime();
    for (int l = 0; l < loops; l++) {
      Process p = builder(argv).start();
      long started = System.nanoTime();
      Thread t =
          new Thread(
              () -> {
                try {
                  check(argv, p.waitFor());
                  durations.add((System.nanoTime() - started) / 1e9);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      t.start();
      waiters.add(t);
    }
    for (Thread t : waiters) {
      t.join();
    }
    double wall = (System.nanoTime() - begin) / 1e9;
    if (durations.size() != loops) {
      throw new IllegalStateException("a loop of " + command + " failed");
    }
    double[] d = durations.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return new Parallel(loops, calls, loops * calls / wall, d[loops / 2], d[loops - 1]);
  }
}
