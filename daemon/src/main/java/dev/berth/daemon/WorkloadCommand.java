package dev.berth.daemon;

import dev.berth.scheduler.sim.LublinModel;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Writes a synthetic workload trace in the Standard Workload Format, for {@code berth simulate}
 * where no recorded trace is at hand: batch jobs of Lublin and Feitelson's model, which gives no
 * requested times (see {@code --missing-time}).
 */
@Command(
    name = "workload",
    description =
        "Write a synthetic workload trace (Standard Workload Format) of Lublin and Feitelson's"
            + " model, for berth simulate.")
final class WorkloadCommand implements Callable<Integer> {
  @Option(names = "--jobs", required = true, description = "How many jobs.")
  int jobs;

  @Option(
      names = "--processors",
      required = true,
      description = "The machine's processors: the widest job (berth simulate's nodes x CPUs).")
  int processors;

  @Option(names = "--seed", defaultValue = "1", description = "The same seed, the same trace.")
  long seed;

  @Option(names = "--out", required = true, description = "The trace file to write.")
  Path out;

  @Override
  public Integer call() {
    String trace;
    try {
      trace = LublinModel.swf(LublinModel.jobs(jobs, processors, seed), processors, seed);
    } catch (IllegalArgumentException e) {
      System.err.println("berth workload: " + e.getMessage());
      return 2;
    }
    try (Writer w = Files.newBufferedWriter(out, StandardCharsets.ISO_8859_1)) {
      w.write(trace);
    } catch (IOException e) {
      System.err.println("berth workload: cannot write " + out + ": " + e.getMessage());
      return 2;
    }
    System.out.printf("%s: %d jobs for %d processors, seed %d%n", out, jobs, processors, seed);
    return 0;
  }
}
