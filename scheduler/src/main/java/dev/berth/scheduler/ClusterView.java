package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The read-only view of the cluster a scheduling cycle works from. */
public interface ClusterView {
  /** The moment the cycle plans from, in epoch seconds. */
  long now();

  SchedulerSettings settings();

  /** Nodes in placement order. */
  List<NodeCapacity> nodes();

  /**
   * Jobs that may start now (state Q, queue started), in submission order: higher -p first, then
   * submission. The cycle orders them by priority.
   */
  Iterable<Job> eligibleJobs();

  /** The jobs that hold nodes, with when each will end at the latest. */
  List<RunningJob> runningJobs();

  /** The administrators' reservations whose windows have not ended. */
  List<AdvanceReservation> reservations();

  /**
   * The preemptor queues: their jobs are looked at before every other queue's and may requeue or
   * suspend preemptable running jobs to start.
   */
  Set<String> preemptorQueues();

  /**
   * The running jobs a preemptor's job may requeue or suspend, and those already being killed (what
   * they hold is about to be free). Asked only when a preemptor's job cannot start.
   */
  List<PreemptableJob> preemptable();

  /** The jobs suspended for preemptors' jobs, the longest suspended first. */
  List<SuspendedJob> suspended();

  /** Every queue's Priority attribute (0 where unset), for the priority's queue factor. */
  Map<String, Integer> queuePriorities();

  /** The users' and accounts' fair-share factors, from their decayed usage and shares. */
  FairShare fairShare();

  /** The running-job limits that apply to {@code job}, each with its maximum. */
  Map<RunLimit, Integer> limits(Job job);

  /** How many jobs run now under a limit. */
  int running(RunLimit limit);
}
