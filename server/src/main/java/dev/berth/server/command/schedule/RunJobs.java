package dev.berth.server.command.schedule;

import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobDispatched;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Reservation;
import dev.berth.scheduler.RunDecision;
import dev.berth.scheduler.RunningJob;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.NodeUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The scheduler's run decisions, re-checked against the current state (the plan was made from an
 * older view, and plans made from different views may meet): the job must still be queued in a
 * started queue, every running-job limit that applies to it must still have room, every CPU must
 * still be free on a usable node (a suspended job's CPUs only for a preemptor's job), and the
 * reservations must allow it: a reservation's job starts only inside its window and on its nodes,
 * any other job only where no reservation's window would begin before its walltime ends.
 */
public final class RunJobs {
  private RunJobs() {}

  /** The JobDispatched event for a decision that still holds, or empty if it no longer does. */
  public static Optional<Event.Builder> dispatch(ClusterState s, RunDecision d, long now) {
    return dispatch(s, d, now, true);
  }

  /**
   * qrun's start: as {@link #dispatch}, whatever the running-job limits (an operator's word
   * overrides the policy, not what the nodes have free).
   */
  static Optional<Event.Builder> dispatchNow(ClusterState s, RunDecision d, long now) {
    return dispatch(s, d, now, false);
  }

  private static Optional<Event.Builder> dispatch(
      ClusterState s, RunDecision d, long now, boolean withinLimits) {
    Optional<Job> job = s.job(d.jobId());
    if (job.isEmpty()
        || job.get().getState() != JobState.QUEUED
        || !job.get().getArrayRequest().isEmpty() // an array runs only as its subjobs
        || !QueueAttributes.started(s, job.get().getQueue())
        || (withinLimits && !RunLimits.within(s, job.get()))
        || !stillFree(s, job.get(), d)
        || !reservationsAllow(s, job.get(), d, now)) {
      return Optional.empty();
    }
    return Optional.of(
        Event.newBuilder()
            .setJobDispatched(
                JobDispatched.newBuilder()
                    .setJobId(d.jobId())
                    .addAllExecNodes(withGpuIds(s, d.allocations()))));
  }

  /**
   * The allocations with the GPUs they get: on each node the lowest ids no job holds, so each GPU
   * has one job. {@link #stillFree} has checked that enough are free.
   */
  private static List<NodeAllocation> withGpuIds(ClusterState s, List<NodeAllocation> allocations) {
    List<NodeAllocation> result = new ArrayList<>(allocations.size());
    for (NodeAllocation a : allocations) {
      List<Integer> free = freeGpus(s.node(a.getNode()).orElseThrow(), s.usage(a.getNode()));
      result.add(a.toBuilder().clearGpuIds().addAllGpuIds(free.subList(0, a.getGpus())).build());
    }
    return result;
  }

  /** The node's GPU ids that no job holds, ascending. */
  private static List<Integer> freeGpus(Node node, NodeUsage u) {
    List<Integer> free = new ArrayList<>();
    for (int id = 0; id < node.getGpus(); id++) {
      if (!u.gpuJobs().containsKey(id)) {
        free.add(id);
      }
    }
    return free;
  }

  /** Whether the reservations let {@code job} start on {@code node} now (qrun's candidates). */
  static boolean reservationsAllowOn(ClusterState s, Job job, String node, long now) {
    return reservationsAllow(
        s,
        job,
        new RunDecision(job.getId(), List.of(NodeAllocation.newBuilder().setNode(node).build())),
        now);
  }

  private static boolean reservationsAllow(ClusterState s, Job job, RunDecision d, long now) {
    Optional<Reservation> own = s.reservationOfQueue(job.getQueue());
    if (own.isPresent()) {
      Reservation r = own.get();
      Set<String> reserved = Set.copyOf(r.getNodesList());
      return ReservationCommands.live(r)
          && r.getStart() <= now
          && now < r.getEnd()
          && d.allocations().stream().allMatch(a -> reserved.contains(a.getNode()));
    }
    long end = RunningJob.endOf(now, RunningJob.duration(job));
    Set<String> nodes = new HashSet<>();
    d.allocations().forEach(a -> nodes.add(a.getNode()));
    for (Reservation r : s.reservations().values()) {
      if (ReservationCommands.live(r)
          && r.getStart() < end
          && now < r.getEnd()
          && r.getNodesList().stream().anyMatch(nodes::contains)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether what the decision places the job on is still free for it: no running job on its CPUs,
   * and a suspended job's only for a preemptor's job; enough memory and GPUs (by number, and by ids
   * for jobs that hold ids: those dispatched before GPUs had them hold a number only).
   */
  private static boolean stillFree(ClusterState s, Job job, RunDecision d) {
    boolean mayBorrow = QueueAttributes.preemptor(s, job.getQueue());
    for (NodeAllocation a : d.allocations()) {
      Optional<Node> node = s.node(a.getNode());
      if (node.isEmpty()
          || !node.get().getRegistered()
          || node.get().getDown()
          || node.get().getOffline()) {
        return false;
      }
      NodeUsage u = s.usage(a.getNode());
      if (a.getCpusList().stream()
          .anyMatch(
              c ->
                  u.cpuJobs().containsKey(c)
                      || (!mayBorrow && u.lentCpus().containsKey(c))
                      || !node.get().getCpuIdsList().contains(c))) {
        return false;
      }
      long physmem = node.get().getPhysmem();
      if (physmem > 0 && u.memReserved() + a.getMem() > physmem) {
        return false;
      }
      if (a.getGpus() < 0
          || u.gpusReserved() + a.getGpus() > node.get().getGpus()
          || freeGpus(node.get(), u).size() < a.getGpus()
          || a.getCpusList().stream().distinct().count() != a.getCpusCount()) {
        return false;
      }
    }
    return true;
  }
}
