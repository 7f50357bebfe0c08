package dev.berth.bench;

import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.sim.Policy;
import dev.berth.scheduler.sim.Simulation;
import dev.berth.scheduler.sim.SimulationReport;
import dev.berth.scheduler.sim.SwfJob;
import dev.berth.scheduler.sim.SwfTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * {@code berth simulate}'s engine on large clusters: 110,000 jobs queued at once on 1,000 and on
 * 10,000 nodes of 32 CPUs, run to the last end under the default backfill with age and fair share
 * weighted, and the cycle times printed. Jobs: six in ten of one to four CPUs, three a whole node,
 * one of 2 to 16 whole nodes; run times of one to twelve whole hours (so the cluster changes on the
 * hour, and a cycle then has much to do), each asking an hour more than it ran; 500 users in 50
 * groups. Seeded, so every run replays the same trace. Checks that every job ran.
 */
final class ScaleSimulation {
  static final int JOBS = 110_000;
  static final int CPUS = 32;

  private ScaleSimulation() {}

  static void run() {
    SwfTrace trace = trace(new Random(7));
    PriorityWeights weights = new PriorityWeights(10_000, 86_400, 0, false, 0, 1000, 10_000);
    for (int nodes : new int[] {1_000, 10_000}) {
      long start = System.nanoTime();
      SimulationReport report =
          new Simulation(nodes, CPUS, Policy.BACKFILL.settings(weights, 1), 7 * 86_400).run(trace);
      if (report.jobs() != JOBS) {
        throw new IllegalStateException("ran " + report.jobs() + " of " + JOBS + " jobs");
      }
      System.out.printf(
          "%,d jobs queued at once on %,d nodes of %d CPUs (backfill, age and fair share), %.0f s:%n",
          JOBS, nodes, CPUS, (System.nanoTime() - start) / 1e9);
      report.lines().forEach(l -> System.out.println("  " + l));
    }
  }

  static SwfTrace trace(Random random) {
    List<SwfJob> jobs = new ArrayList<>(JOBS);
    for (int n = 1; n <= JOBS; n++) {
      int kind = random.nextInt(10);
      int processors =
          kind < 6 ? 1 + random.nextInt(4) : kind < 9 ? CPUS : CPUS * (2 + random.nextInt(15));
      long runtime = 3600L * (1 + random.nextInt(12));
      long user = 1 + random.nextInt(500);
      jobs.add(new SwfJob(n, 0, runtime, processors, runtime + 3600, user, user % 50));
    }
    return new SwfTrace(jobs, 0);
  }
}
