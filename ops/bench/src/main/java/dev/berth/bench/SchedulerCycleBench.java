package dev.berth.bench;

import dev.berth.scheduler.Planner;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.schedule.StateView;
import dev.berth.server.state.ClusterState;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * One scheduling cycle as the server runs it (the view of a committed state, then the plan) on a
 * large cluster with 100,000 jobs queued: nodes of 32 CPUs. In {@code aCpuIsFree} every node runs a
 * job on 31 of them, one node has its last CPU free and every queued job needs one CPU (the cycle
 * after a job's end); in {@code nothingFits} every node has one CPU free and every queued job needs
 * two on one node, so the cycle looks at every job on every node. {@code backfill} is a site's day:
 * running jobs of every width with walltimes, some CPUs free, queued jobs from one CPU to many
 * nodes with walltimes from ten minutes to a day, priority by age and size (so every job's priority
 * is worked out and sorted each cycle), EASY backfill; {@code beforeMaintenance} is that day with a
 * reservation of every node beginning in an hour, for two (jobs that would still run then start
 * nowhere, and their estimates move past it). The states are built from events through the server's
 * own state machine, as a replayed journal builds them.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx6g")
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SchedulerCycleBench {
  static final int QUEUED = 100_000;
  static final int CPUS = 32;
  private static final int MAX_STARTS = 1000;
  private static final long NOW = 1_800_000_000;

  @Param({"1000", "10000"})
  int nodes;

  private ClusterState oneFree;
  private ClusterState blocked;
  private ClusterState day;
  private int dayStarts;
  private ClusterState maintenance;
  private int maintenanceStarts;

  @Setup(Level.Trial)
  public void build() {
    oneFree = state(nodes, 1, true);
    blocked = state(nodes, 2, false);
    day = SiteDay.state(nodes, QUEUED, NOW);
    dayStarts = SiteDay.check(day, Planner.plan(new StateView(day, NOW), MAX_STARTS), NOW);
    maintenance = SiteDay.withMaintenance(day, nodes, NOW + 3600, NOW + 3 * 3600);
    maintenanceStarts =
        SiteDay.check(maintenance, Planner.plan(new StateView(maintenance, NOW), MAX_STARTS), NOW);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public List<RunDecision> aCpuIsFree() {
    return check(Planner.plan(new StateView(oneFree, NOW), MAX_STARTS).decisions(), 1);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public List<RunDecision> nothingFits() {
    return check(Planner.plan(new StateView(blocked, NOW), MAX_STARTS).decisions(), 0);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public List<RunDecision> backfill() {
    return check(Planner.plan(new StateView(day, NOW), MAX_STARTS).decisions(), dayStarts);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public List<RunDecision> beforeMaintenance() {
    return check(
        Planner.plan(new StateView(maintenance, NOW), MAX_STARTS).decisions(), maintenanceStarts);
  }

  /** A benchmark of cycles that decided wrongly measures nothing. */
  private static List<RunDecision> check(List<RunDecision> plan, int starts) {
    if (plan.size() != starts) {
      throw new IllegalStateException("planned " + plan.size() + " starts, expected " + starts);
    }
    return plan;
  }

  /**
   * Nodes of {@link #CPUS} CPUs each running a job on all but one (all, but for the first node,
   * when {@code onlyFirstHasRoom}), then {@link #QUEUED} jobs each asking for {@code ppn} CPUs on
   * one node.
   */
  static ClusterState state(int nodes, int ppn, boolean onlyFirstHasRoom) {
    BenchState b = new BenchState();
    for (int n = 0; n < nodes; n++) {
      b.node("n" + n, CPUS);
      int busy = onlyFirstHasRoom && n > 0 ? CPUS : CPUS - 1;
      b.run(b.submit(1, busy, 0, 1_000), List.of(BenchState.cpus("n" + n, 0, busy)), 0);
    }
    for (int i = 0; i < QUEUED; i++) {
      b.submit(1, ppn, 0, 1_000);
    }
    return b.state();
  }

  /** Runs every cycle at both sizes in a forked JVM and prints JMH's figures. */
  static void run() throws RunnerException {
    new Runner(new OptionsBuilder().include(SchedulerCycleBench.class.getName()).build()).run();
  }
}
