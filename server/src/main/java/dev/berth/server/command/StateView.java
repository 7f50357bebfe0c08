package dev.berth.server.command;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.Queue;
import dev.berth.proto.Reservation;
import dev.berth.scheduler.AdvanceReservation;
import dev.berth.scheduler.ClusterView;
import dev.berth.scheduler.FairShare;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.scheduler.PreemptableJob;
import dev.berth.scheduler.RunLimit;
import dev.berth.scheduler.RunningJob;
import dev.berth.scheduler.SchedulerSettings;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.NodeUsage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The scheduler's read-only view of an immutable {@link ClusterState}: node capacities from the
 * nodes and what jobs hold on them, and the queued jobs of started queues in order.
 */
public final class StateView implements ClusterView {
  private final ClusterState state;
  private final long now;
  private List<NodeCapacity> nodes;
  private Map<String, Reservation> reservations;

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
      List<Integer> free =
          n.getCpuIdsList().stream().filter(c -> !u.cpuJobs().containsKey(c)).toList();
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
              n.getRegistered() && !n.getDown() && !n.getOffline(),
              u.idle()));
    }
    return result;
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
      if (!QueueAttributes.flag(q, QueueAttributes.STARTED)) {
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
    for (Job j : state.holding().values()) {
      result.add(running(j));
    }
    return result;
  }

  /**
   * A job holding nodes, to end at its start plus its walltime (unknown without one), or at its
   * reservation's end, where it is killed; one the mom has not yet reported started counts as
   * starting now.
   */
  private RunningJob running(Job j) {
    long start = j.getStartTime() > 0 ? j.getStartTime() : now;
    long end = RunningJob.endOf(start, RunningJob.duration(j));
    Reservation r = reservationOfQueue().get(j.getQueue());
    return new RunningJob(
        j.getId(), r == null ? end : Math.min(end, r.getEnd()), j.getExecNodesList());
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
      if (QueueAttributes.flag(q, QueueAttributes.PREEMPTOR)) {
        result.add(q.getName());
      }
    }
    return result;
  }

  /**
   * Running jobs being killed (their CPUs are about to be free), and the rerunnable running jobs of
   * preemptable queues, which a preemptor's job may requeue.
   */
  @Override
  public List<PreemptableJob> preemptable() {
    List<PreemptableJob> result = new ArrayList<>();
    for (Job j : state.holding().values()) {
      boolean ending = j.getState() == JobState.RUNNING && !j.getDeleteRequestedBy().isEmpty();
      if (ending || Preemptions.mayRequeue(state, j)) {
        long start = j.getStartTime() > 0 ? j.getStartTime() : now;
        result.add(new PreemptableJob(j.getId(), start, j.getExecNodesList(), ending));
      }
    }
    return result;
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
      long p = QueueAttributes.get(q, QueueAttributes.PRIORITY).map(Long::parseLong).orElse(0L);
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
