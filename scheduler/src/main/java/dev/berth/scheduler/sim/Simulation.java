package dev.berth.scheduler.sim;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.scheduler.AdvanceReservation;
import dev.berth.scheduler.ClusterView;
import dev.berth.scheduler.DecayedUsage;
import dev.berth.scheduler.FairShare;
import dev.berth.scheduler.Hosting;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.scheduler.Plan;
import dev.berth.scheduler.Planner;
import dev.berth.scheduler.PreemptableJob;
import dev.berth.scheduler.RunDecision;
import dev.berth.scheduler.RunLimit;
import dev.berth.scheduler.RunningJob;
import dev.berth.scheduler.SchedulerSettings;
import dev.berth.scheduler.SuspendedJob;
import dev.berth.scheduler.Waiting;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * Replays a trace in virtual time on a cluster of identical nodes, with no moms: jobs arrive at
 * their submission time, run for their recorded run time once the policy starts them, and a
 * scheduling cycle follows every moment at which jobs arrive or end (as the server runs one when
 * work is added or CPUs are freed). The policy is the server's own planning code; only the clock
 * and the cluster are simulated. Jobs run for their recorded run time; the scheduler plans with
 * their requested time as walltime, as it would with a user's estimate. Cycle times are the real
 * time each cycle took here.
 */
public final class Simulation {
  /** At most this many starts per cycle, as the server's default. */
  private static final int MAX_STARTS_PER_CYCLE = 1000;

  private final int nodeCount;
  private final int cpusPerNode;
  private final List<Integer> cpuIds;
  private final SchedulerSettings settings;
  private final long halfLifeSeconds;
  private final Estimates estimates;
  private final Map<String, DecayedUsage> userUsage = new HashMap<>();
  private final Map<String, DecayedUsage> accountUsage = new HashMap<>();

  /** Fair-share usage (when the settings weigh it) halves every week, as the server's default. */
  public Simulation(int nodes, int cpusPerNode, SchedulerSettings settings) {
    this(nodes, cpusPerNode, settings, 7 * 24 * 3600);
  }

  public Simulation(int nodes, int cpusPerNode, SchedulerSettings settings, long halfLifeSeconds) {
    this(nodes, cpusPerNode, settings, halfLifeSeconds, Estimates.NONE);
  }

  /** As above, planning jobs without a requested time with {@code estimates}. */
  public Simulation(
      int nodes,
      int cpusPerNode,
      SchedulerSettings settings,
      long halfLifeSeconds,
      Estimates estimates) {
    if (nodes < 1 || cpusPerNode < 1) {
      throw new IllegalArgumentException(
          "a cluster needs at least one node of one CPU, not " + nodes + " x " + cpusPerNode);
    }
    this.nodeCount = nodes;
    this.cpusPerNode = cpusPerNode;
    List<Integer> ids = new ArrayList<>();
    for (int c = 0; c < cpusPerNode; c++) {
      ids.add(c);
    }
    this.cpuIds = List.copyOf(ids);
    this.settings = settings;
    this.halfLifeSeconds = halfLifeSeconds;
    this.estimates = estimates;
  }

  /**
   * A started job: when it started, when it really ends, when its walltime says it ends at the
   * latest, and whether that walltime is only an estimate ({@link Estimates}).
   */
  private record Running(
      long start,
      long end,
      long plannedEnd,
      boolean estimated,
      String jobId,
      List<NodeAllocation> allocations,
      Job job) {
    /**
     * When planning at {@code now} takes it to end: an estimate it has outrun is renewed, one
     * estimate at a time, since the job was not killed at it as at a walltime.
     */
    long plannedEndAt(long now) {
      if (!estimated || plannedEnd > now || plannedEnd == RunningJob.UNKNOWN_END) {
        return plannedEnd;
      }
      return RunningJob.renewedEnd(start, Math.max(1, plannedEnd - start), now);
    }
  }

  public SimulationReport run(SwfTrace trace) {
    List<SwfJob> arrivals = new ArrayList<>(trace.jobs());
    arrivals.sort(Comparator.comparingLong(SwfJob::submit).thenComparingLong(SwfJob::number));
    List<TreeSet<Integer>> free = new ArrayList<>();
    for (int n = 0; n < nodeCount; n++) {
      free.add(new TreeSet<>(cpuIds));
    }
    Map<String, Job> queued = new LinkedHashMap<>();
    Map<String, SwfJob> byId = new HashMap<>();
    Map<String, Long> firstReserved = new HashMap<>();
    PriorityQueue<Running> running =
        new PriorityQueue<>(Comparator.comparingLong(Running::end).thenComparing(Running::jobId));
    SimulationReport.Builder report =
        new SimulationReport.Builder(nodeCount * cpusPerNode, estimates.describe());
    int next = 0;
    while (next < arrivals.size() || !running.isEmpty()) {
      long now = Long.MAX_VALUE;
      if (next < arrivals.size()) {
        now = arrivals.get(next).submit();
      }
      if (!running.isEmpty()) {
        now = Math.min(now, running.peek().end());
      }
      while (!running.isEmpty() && running.peek().end() == now) {
        Running ended = running.poll();
        for (NodeAllocation a : ended.allocations()) {
          free.get(index(a.getNode())).addAll(a.getCpusList());
        }
        charge(ended);
      }
      while (next < arrivals.size() && arrivals.get(next).submit() == now) {
        SwfJob j = arrivals.get(next++);
        if (j.processors() > nodeCount * cpusPerNode) {
          report.tooLarge();
          continue;
        }
        Job job = job(j);
        queued.put(job.getId(), job);
        byId.put(job.getId(), j);
      }
      // a cycle that started as many jobs as it may is followed at once by another, as the
      // server schedules again after recording them
      Plan plan;
      do {
        plan = cycle(now, free, queued, byId, running, firstReserved, report);
      } while (plan.decisions().size() == MAX_STARTS_PER_CYCLE && !queued.isEmpty());
    }
    return report.build(trace.leftOut());
  }

  /** One scheduling cycle at {@code now}, its starts applied; an empty plan with nothing queued. */
  private Plan cycle(
      long now,
      List<TreeSet<Integer>> free,
      Map<String, Job> queued,
      Map<String, SwfJob> byId,
      PriorityQueue<Running> running,
      Map<String, Long> firstReserved,
      SimulationReport.Builder report) {
    if (queued.isEmpty()) {
      return new Plan(List.of(), List.of(), List.of(), Map.of(), new Waiting("nothing queued", 0));
    }
    long started = System.nanoTime();
    Plan plan = Planner.plan(view(now, free, queued, running), MAX_STARTS_PER_CYCLE);
    report.cycle(System.nanoTime() - started);
    plan.waiting()
        .forEach(
            (id, w) -> {
              if (w.estimatedStart() > 0) {
                firstReserved.putIfAbsent(id, w.estimatedStart());
              }
            });
    for (RunDecision d : plan.decisions()) {
      SwfJob j = byId.remove(d.jobId());
      Job job = queued.remove(d.jobId());
      for (NodeAllocation a : d.allocations()) {
        free.get(index(a.getNode())).removeAll(a.getCpusList());
      }
      long plannedEnd = RunningJob.endOf(now, RunningJob.duration(job));
      running.add(
          new Running(
              now,
              now + j.runtime(),
              plannedEnd,
              estimates.estimates(j),
              d.jobId(),
              d.allocations(),
              job));
      report.started(j, now);
      Long reserved = firstReserved.remove(d.jobId());
      if (reserved != null) {
        report.reservedStart(reserved, now);
      }
    }
    return plan;
  }

  /** Charges a job's CPU-seconds to its user and account at its end, as the server does. */
  private void charge(Running ended) {
    long cpus = 0;
    for (NodeAllocation a : ended.allocations()) {
      cpus += a.getCpusCount();
    }
    double amount = (double) cpus * (ended.end() - ended.start());
    long millis = ended.end() * 1000;
    DecayedUsage fresh = DecayedUsage.NONE.plus(amount, millis, halfLifeSeconds);
    userUsage.merge(
        ended.job().getEuser(), fresh, (old, x) -> old.plus(amount, millis, halfLifeSeconds));
    accountUsage.merge(
        FairShare.account(ended.job()),
        fresh,
        (old, x) -> old.plus(amount, millis, halfLifeSeconds));
  }

  /**
   * The job as a Torque request would have it: whole nodes of {@code ppn=P} for its processors, and
   * one node with the rest; its requested time as its walltime, or where the trace has none what
   * {@link Estimates} plans it with.
   */
  private Job job(SwfJob j) {
    ResourceRequest.Builder r = ResourceRequest.newBuilder();
    int whole = j.processors() / cpusPerNode;
    int rest = j.processors() % cpusPerNode;
    if (whole > 0) {
      r.addNodeGroups(NodeGroup.newBuilder().setCount(whole).setPpn(cpusPerNode));
    }
    if (rest > 0) {
      r.addNodeGroups(NodeGroup.newBuilder().setCount(1).setPpn(rest));
    }
    long walltime = estimates.walltime(j);
    if (walltime > 0) {
      r.setWalltime(walltime);
    }
    return Job.newBuilder()
        .setId(j.number() + ".sim")
        .setNumber(j.number())
        .setQueue("batch")
        .setEuser(j.user() < 0 ? "unknown" : "user" + j.user())
        .setEgroup(j.group() < 0 ? "unknown" : "group" + j.group())
        .setQtime(j.submit())
        .setResources(r)
        .build();
  }

  private ClusterView view(
      long now,
      List<TreeSet<Integer>> free,
      Map<String, Job> queued,
      PriorityQueue<Running> started) {
    List<NodeCapacity> nodes = new ArrayList<>(nodeCount);
    for (int n = 0; n < nodeCount; n++) {
      TreeSet<Integer> f = free.get(n);
      nodes.add(
          new NodeCapacity(
              name(n),
              Set.of(),
              cpuIds,
              List.copyOf(f),
              0,
              0,
              0,
              0,
              true,
              f.size() == cpusPerNode,
              Hosting.ANY));
    }
    List<Job> eligible = List.copyOf(queued.values());
    return new ClusterView() {
      @Override
      public long now() {
        return now;
      }

      @Override
      public SchedulerSettings settings() {
        return settings;
      }

      @Override
      public List<NodeCapacity> nodes() {
        return nodes;
      }

      @Override
      public Iterable<Job> eligibleJobs() {
        return eligible;
      }

      @Override
      public List<RunningJob> runningJobs() {
        return started.stream()
            .map(r -> new RunningJob(r.jobId(), r.plannedEndAt(now), r.allocations()))
            .toList();
      }

      @Override
      public List<AdvanceReservation> reservations() {
        return List.of();
      }

      @Override
      public Set<String> preemptorQueues() {
        return Set.of();
      }

      @Override
      public List<PreemptableJob> preemptable() {
        return List.of();
      }

      @Override
      public List<SuspendedJob> suspended() {
        return List.of();
      }

      @Override
      public Map<String, Integer> queuePriorities() {
        return Map.of();
      }

      @Override
      public FairShare fairShare() {
        return new FairShare(
            DecayedUsage.valuesAt(userUsage, now * 1000, halfLifeSeconds),
            Map.of(),
            DecayedUsage.valuesAt(accountUsage, now * 1000, halfLifeSeconds),
            Map.of(),
            1);
      }

      @Override
      public Map<RunLimit, Integer> limits(Job job) {
        return Map.of();
      }

      @Override
      public int running(RunLimit limit) {
        return 0;
      }
    };
  }

  private static String name(int index) {
    return "n" + index;
  }

  private static int index(String name) {
    return Integer.parseInt(name.substring(1));
  }
}
