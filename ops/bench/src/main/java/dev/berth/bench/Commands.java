package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Wall time of the Berth commands as a shell user runs them (ops/bin/qsub, ops/bin/qstat). */
final class Commands {
  record Result(String command, int runs, double median, double p90, double min) {}

  private Commands() {}

  /** Runs each command {@code runs} times, interleaved, and reports milliseconds per call. */
  static List<Result> time(
      Path root, Path cwd, Map<String, String> env, List<List<String>> commands, int runs)
      throws IOException, InterruptedException {
    double[][] samples = new double[commands.size()][runs];
    for (int r = 0; r < runs; r++) {
      for (int c = 0; c < commands.size(); c++) {
        List<String> argv = new ArrayList<>(commands.get(c));
        argv.set(0, root.resolve("ops/bin").resolve(argv.get(0)).toString());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile());
        pb.environment().putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD);
        long begin = System.nanoTime();
        int exit = pb.start().waitFor();
        samples[c][r] = (System.nanoTime() - begin) / 1e6;
        if (exit != 0) {
          throw new IllegalStateException(String.join(" ", argv) + " exited " + exit);
        }
      }
    }
    List<Result> results = new ArrayList<>();
    for (int c = 0; c < commands.size(); c++) {
      double[] s = samples[c].clone();
      Arrays.sort(s);
      results.add(
          new Result(
              String.join(" ", commands.get(c)), runs, s[runs / 2], s[(int) (runs * 0.9)], s[0]));
    }
    return results;
  }
}
