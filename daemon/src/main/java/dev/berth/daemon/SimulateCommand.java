package dev.berth.daemon;

import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.sim.Estimates;
import dev.berth.scheduler.sim.Policy;
import dev.berth.scheduler.sim.Simulation;
import dev.berth.scheduler.sim.SimulationReport;
import dev.berth.scheduler.sim.SwfTrace;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Replays a Standard Workload Format trace through the scheduler's own policy code in virtual time
 * on a cluster of identical nodes, with no server and no moms, and prints what schedulers are
 * compared by.
 */
@Command(
    name = "simulate",
    description =
        "Replay a workload trace (Standard Workload Format) through the scheduler in virtual time.")
final class SimulateCommand implements Callable<Integer> {
  @Option(names = "--trace", required = true, description = "The SWF trace file.")
  Path trace;

  @Option(names = "--nodes", required = true, description = "How many nodes the cluster has.")
  int nodes;

  @Option(names = "--cpus", required = true, description = "CPUs per node.")
  int cpus;

  @Option(
      names = "--policy",
      defaultValue = "backfill",
      description =
          "fifo (first come, first served), firstfit (any job that fits passes), or backfill"
              + " (by priority, reserved starts for the first jobs that cannot start; the default).")
  String policy;

  @Option(
      names = "--backfill-depth",
      defaultValue = "1",
      description = "How many waiting jobs get a reserved start under backfill (1: EASY).")
  int backfillDepth;

  @Option(
      names = "--missing-time",
      defaultValue = "none",
      paramLabel = "none|runtime|TIME",
      description =
          "What jobs without a requested time in the trace are planned with: none (backfill"
              + " reserves no start behind them; the default), runtime (their real run time,"
              + " exact estimates) or a time ([[HH:]MM:]SS). They still run their real run time.")
  String missingTime;

  @Option(
      names = "--priority-weight-age",
      defaultValue = "0",
      description = "Weight of a job's wait, reaching it at --priority-max-age (as qmgr's).")
  long weightAge;

  @Option(
      names = "--priority-max-age",
      defaultValue = "604800",
      description = "Seconds of waiting that earn the whole age weight.")
  long maxAge;

  @Option(
      names = "--priority-weight-job-size",
      defaultValue = "0",
      description = "Weight of a job's share of the cluster's CPUs.")
  long weightSize;

  @Option(
      names = "--priority-weight-fairshare",
      defaultValue = "0",
      description = "Weight of the fair-share factor of the job's user and group.")
  long weightFairShare;

  @Option(
      names = "--fairshare-half-life",
      defaultValue = "604800",
      description = "Seconds in which fair-share usage halves.")
  long halfLife;

  @Override
  public Integer call() {
    Simulation simulation;
    try {
      PriorityWeights weights =
          new PriorityWeights(weightAge, maxAge, weightSize, false, 0, 1000, weightFairShare);
      simulation =
          new Simulation(
              nodes,
              cpus,
              Policy.named(policy).settings(weights, backfillDepth),
              halfLife,
              Estimates.parse(missingTime));
    } catch (IllegalArgumentException e) {
      System.err.println("berth simulate: " + e.getMessage());
      return 2;
    }
    try {
      SwfTrace jobs;
      try (Reader in = Files.newBufferedReader(trace, StandardCharsets.ISO_8859_1)) {
        jobs = SwfTrace.parse(in);
      }
      SimulationReport report = simulation.run(jobs);
      System.out.printf(
          "%s on %d nodes of %d CPUs, policy %s%s%s%n",
          trace.getFileName(),
          nodes,
          cpus,
          policy,
          policy.equals("backfill") ? " (depth " + backfillDepth + ")" : "",
          weightAge + weightSize + weightFairShare == 0
              ? ""
              : String.format(
                  ", priority weights age %d (max %d s), job size %d, fair share %d (half-life %d s)",
                  weightAge, maxAge, weightSize, weightFairShare, halfLife));
      report.lines().forEach(System.out::println);
      return 0;
    } catch (NoSuchFileException e) {
      System.err.println("berth simulate: no trace " + e.getFile());
      return 2;
    } catch (IOException e) {
      System.err.println("berth simulate: cannot read " + trace + ": " + e.getMessage());
      return 2;
    } catch (IllegalArgumentException e) {
      System.err.println("berth simulate: " + trace + ": " + e.getMessage());
      return 2;
    }
  }
}
