package dev.berth.server.command.schedule;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.Suspensions;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Queue;
import dev.berth.proto.Reservation;
import dev.berth.scheduler.AdvanceReservation;
import dev.berth.scheduler.ClusterView;
import dev.berth.scheduler.FairShare;
import dev.berth.scheduler.Hosting;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.scheduler.PreemptableJob;
import dev.berth.scheduler.RunLimit;
import dev.berth.scheduler.RunningJob;
import dev.berth.scheduler.SchedulerSettings;
import dev.berth.scheduler.SuspendedJob;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.NodeUsage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The scheduler's read-only view of an immutable {@link ClusterState}: node capacities from the
 * nodes and what jobs hold on them, and the queued jobs of started queues in order.
 */
public final class StateView implements ClusterView {
  private final ClusterState state;
  private final long now;
  private List<NodeCapacity> nodes;
  private Map<String, Reservation> reservations;
  private Set<String> lendingNodes;

  /**
   * @param now the moment a cycle plans from, in epoch seconds
   */
  public StateView(ClusterState state, long now) {
    this.state = state;
    this.now = now;
  }

  @Override
  public long now() {
    return now;
  }

  @Override
  public SchedulerSettings settings() {
    return ServerAttributes.scheduler(state);
  }

  public static List<NodeCapacity> capacities(ClusterState s) {
    List<NodeCapacity> result = new ArrayList<>(s.nodes().size());
    for (Node n : s.nodes().values()) {
      NodeUsage u = s.usage(n.getName());
      // a suspended job's CPUs are not free: they are lent to preemptors' jobs only (suspended())
      List<Integer> free =
          n.getCpuIdsList().stream()
              .filter(c -> !u.cpuJobs().containsKey(c) && !u.lentCpus().containsKey(c))
              .toList();
      result.add(
          new NodeCapacity(
              n.getName(),
              Set.copyOf(n.getPropertiesList()),
              n.getCpuIdsList(),
              free,
              n.getPhysmem(),
              n.getPhysmem() - u.memReserved(),
              n.getGpus(),
              n.getGpus() - u.gpusReserved(),
              usable(n),
              u.idle(),
              hosting(n)));
    }
    return result;
  }

  /** Which jobs the node's mom can run, as it reported; any, until it has reported. */
  private static Hosting hosting(Node n) {
    return n.getRegistered()
        ? new Hosting(n.getNoCgroups().isEmpty(), n.getRunsRootJobs())
        : Hosting.ANY;
  }

  /** Every node's capacity, worked out on first use (re-checking limits needs none). */
  @Override
  public List<NodeCapacity> nodes() {
    if (nodes == null) {
      nodes = capacities(state);
    }
    return nodes;
  }

  @Override
  public Iterable<Job> eligibleJobs() {
    Set<String> stopped = new HashSet<>();
    for (Queue q : state.queues().values()) {
      if (!QueueAttributes.flag(q, QueueAttributeNames.STARTED)) {
        stopped.add(q.getName());
      }
    }
    Collection<Job> queued = state.eligible().values();
    if (stopped.isEmpty()) {
      return queued;
    }
    return () -> queued.stream().filter(j -> !stopped.contains(j.getQueue())).iterator();
  }

  @Override
  public List<RunningJob> runningJobs() {
    List<RunningJob> result = new ArrayList<>(state.holding().size());
    Set<String> lending = lendingNodes();
    for (Job j : state.holding().values()) {
      result.add(running(j, lending));
    }
    return result;
  }

  /** The nodes where suspended jobs lend CPUs (on most clusters none), found once per view. */
  private Set<String> lendingNodes() {
    if (lendingNodes == null) {
      lendingNodes = new HashSet<>();
      for (Node n : state.nodes().values()) {
        if (!state.usage(n.getName()).lentCpus().isEmpty()) {
          lendingNodes.add(n.getName());
        }
      }
    }
    return lendingNodes;
  }

  /**
   * A job holding nodes, to end at its start plus its walltime and the time it was suspended, or at
   * its reservation's end, where it is killed; one the mom has not yet reported started counts as
   * starting now. A suspended job runs the rest of its walltime once the jobs on its CPUs have
   * ended. A job without a walltime is planned with its estimate ({@link WalltimeEstimate}),
   * renewed as often as it has outrun it.
   */
  private RunningJob running(Job j, Set<String> lending) {
    long start = j.getStartTime() > 0 ? j.getStartTime() : now;
    Optional<WalltimeEstimate> estimate = WalltimeEstimate.of(j, state);
    long end;
    if (Suspensions.suspended(j)) {
      long ran = Suspensions.ranSeconds(j, now);
      long rest =
          estimate
              .map(e -> e.endAt(0, ran) - ran)
              .orElseGet(() -> Math.max(0, RunningJob.duration(j) - ran));
      end = RunningJob.endOf(resumesAt(j), rest);
    } else {
      end = plannedEnd(j, start, estimate);
    }
    Reservation r = reservationOfQueue().get(j.getQueue());
    return new RunningJob(
        j.getId(), r == null ? end : Math.min(end, r.getEnd()), givenBack(j, lending));
  }

  /**
   * What a job gives back when it ends: what it holds, less the CPUs a suspended job lends it (they
   * go back to that job, which gives them back at its own end).
   */
  private List<NodeAllocation> givenBack(Job j, Set<String> lending) {
    List<NodeAllocation> all = j.getExecNodesList();
    if (lending.isEmpty() || Suspensions.suspended(j)) {
      return all;
    }
    List<NodeAllocation> result = new ArrayList<>(all.size());
    for (NodeAllocation a : all) {
      if (!lending.contains(a.getNode())) {
        result.add(a);
        continue;
      }
      NodeUsage u = state.usage(a.getNode());
      result.add(keepCpus(a, c -> !u.lentCpus().containsKey(c)));
    }
    return result;
  }

  /** When a running job that is not suspended ends: at its walltime, else its estimate's end. */
  private long plannedEnd(Job j, long start, Optional<WalltimeEstimate> estimate) {
    long from = start + Suspensions.suspendedSeconds(j, now);
    return estimate
        .map(e -> e.endAt(from, now))
        .orElseGet(() -> RunningJob.endOf(from, RunningJob.duration(j)));
  }

  /** When the last job running on a suspended job's CPUs ends at the latest. */
  private long resumesAt(Job suspended) {
    long at = now;
    for (NodeAllocation a : suspended.getExecNodesList()) {
      NodeUsage u = state.usage(a.getNode());
      for (int cpu : a.getCpusList()) {
        String holder = u.cpuJobs().get(cpu);
        Job on = holder == null ? null : state.job(holder).orElse(null);
        if (on != null && !Suspensions.suspended(on)) {
          long start = on.getStartTime() > 0 ? on.getStartTime() : now;
          at = Math.max(at, plannedEnd(on, start, WalltimeEstimate.of(on, state)));
        }
      }
    }
    return at;
  }

  @Override
  public List<AdvanceReservation> reservations() {
    List<AdvanceReservation> result = new ArrayList<>();
    // windows that have ended (the next tick finishes them) still say whose queue is whose
    for (Reservation r : reservationOfQueue().values()) {
      result.add(
          new AdvanceReservation(
              r.getId(), r.getQueue(), r.getStart(), r.getEnd(), r.getNodesList()));
    }
    return result;
  }

  @Override
  public Set<String> preemptorQueues() {
    Set<String> result = new HashSet<>();
    for (Queue q : state.queues().values()) {
      if (QueueAttributes.flag(q, QueueAttributeNames.PREEMPTOR)) {
        result.add(q.getName());
      }
    }
    return result;
  }

  /**
   * Running jobs being killed (what they hold is about to be free) or suspended (their CPUs are
   * about to be lent), the rerunnable running jobs of queues whose preempt_mode is requeue, and the
   * running jobs of queues whose preempt_mode is suspend (of which only the CPUs would be free: a
   * suspended job keeps its memory and GPUs).
   */
  @Override
  public List<PreemptableJob> preemptable() {
    List<PreemptableJob> result = new ArrayList<>();
    Set<String> lending = lendingNodes();
    for (Job j : state.holding().values()) {
      boolean ending = j.getState() == JobState.RUNNING && !j.getDeleteRequestedBy().isEmpty();
      long start = j.getStartTime() > 0 ? j.getStartTime() : now;
      if (ending) {
        List<NodeAllocation> freed =
            j.getSuspendConfirmed() ? lessBusyCpus(j) : givenBack(j, lending);
        result.add(new PreemptableJob(j.getId(), start, freed, true));
      } else if (Suspensions.suspended(j) && !j.getSuspendConfirmed()) {
        result.add(
            new PreemptableJob(j.getId(), start, cpusOnly(j.getExecNodesList()), true, true));
      } else if (Preemptions.mayRequeue(state, j)) {
        result.add(new PreemptableJob(j.getId(), start, j.getExecNodesList(), false));
      } else if (Preemptions.maySuspend(state, j)) {
        result.add(
            new PreemptableJob(j.getId(), start, cpusOnly(j.getExecNodesList()), false, true));
      }
    }
    return result;
  }

  /**
   * The suspended jobs, the longest suspended first: found through the nodes' lent CPUs, with those
   * no job runs on now, and whether it may resume (all of them idle, its nodes usable).
   */
  @Override
  public List<SuspendedJob> suspended() {
    Set<String> ids = new HashSet<>();
    for (String node : lendingNodes()) {
      ids.addAll(state.usage(node).lentCpus().values());
    }
    List<SuspendedJob> result = new ArrayList<>(ids.size());
    for (String id : ids) {
      Job j = state.job(id).orElseThrow(); // lent CPUs are a suspended job's
      List<NodeAllocation> idle = new ArrayList<>();
      boolean usable = true;
      for (NodeAllocation a : j.getExecNodesList()) {
        NodeUsage u = state.usage(a.getNode());
        NodeAllocation free = keepCpus(cpusOnly(a), c -> !u.cpuJobs().containsKey(c));
        if (free.getCpusCount() > 0) {
          idle.add(free);
        }
        // an offline node still resumes what it holds; a down one loses it
        usable &= state.node(a.getNode()).map(n -> !n.getDown()).orElse(false);
      }
      result.add(
          new SuspendedJob(
              id, j.getSuspendedAt(), idle, usable && Preemptions.resumable(state, j)));
    }
    result.sort(
        Comparator.comparingLong(SuspendedJob::suspendedAt).thenComparing(SuspendedJob::jobId));
    return result;
  }

  /** A suspended job's allocations less the CPUs running jobs hold (what its end frees now). */
  private List<NodeAllocation> lessBusyCpus(Job j) {
    List<NodeAllocation> result = new ArrayList<>();
    for (NodeAllocation a : j.getExecNodesList()) {
      NodeUsage u = state.usage(a.getNode());
      result.add(keepCpus(a, c -> !u.cpuJobs().containsKey(c)));
    }
    return result;
  }

  /** The allocation with only the CPUs {@code keep} accepts. */
  private static NodeAllocation keepCpus(NodeAllocation a, IntPredicate keep) {
    return a.toBuilder()
        .clearCpus()
        .addAllCpus(a.getCpusList().stream().filter(keep::test).toList())
        .build();
  }

  /** The allocations' CPUs alone, without memory or GPUs: what suspending a job frees. */
  private static List<NodeAllocation> cpusOnly(List<NodeAllocation> allocations) {
    return allocations.stream().map(StateView::cpusOnly).toList();
  }

  private static NodeAllocation cpusOnly(NodeAllocation a) {
    return NodeAllocation.newBuilder().setNode(a.getNode()).addAllCpus(a.getCpusList()).build();
  }

  private static boolean usable(Node n) {
    return n.getRegistered() && !n.getDown() && !n.getOffline();
  }

  /** The live reservations by queue: a finished one's queue is stopped, its jobs go. */
  private Map<String, Reservation> reservationOfQueue() {
    if (reservations == null) {
      reservations = new HashMap<>();
      for (Reservation r : state.reservations().values()) {
        if (ReservationCommands.live(r)) {
          reservations.put(r.getQueue(), r);
        }
      }
    }
    return reservations;
  }

  /** Every queue's Priority, 0 where unset. */
  @Override
  public Map<String, Integer> queuePriorities() {
    Map<String, Integer> result = new HashMap<>();
    for (Queue q : state.queues().values()) {
      long p = QueueAttributes.get(q, QueueAttributeNames.PRIORITY).map(Long::parseLong).orElse(0L);
      result.put(q.getName(), (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, p)));
    }
    return result;
  }

  @Override
  public FairShare fairShare() {
    return ServerAttributes.fairShare(state, now * 1000);
  }

  @Override
  public Map<RunLimit, Integer> limits(Job job) {
    return RunLimits.of(state, job);
  }

  @Override
  public int running(RunLimit limit) {
    return RunLimits.running(state, limit);
  }
}
