package dev.berth.server.command;

import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.JobState;
import dev.berth.scheduler.Preemption;
import dev.berth.server.state.ClusterState;
import java.util.Optional;

/**
 * The scheduler's preemptions, re-checked against the current state (the plan was made from an
 * older view): the victim must still run, untouched by a delete, rerunnable, in a preemptable
 * queue; the job it makes room for must still be queued in a started preemptor queue. The victim is
 * then killed with the reason, and its end requeues it.
 */
final class Preemptions {
  private Preemptions() {}

  static Optional<Event.Builder> requeue(ClusterState s, Preemption p) {
    Optional<Job> victim = s.job(p.victim());
    Optional<Job> preemptor = s.job(p.forJob());
    if (victim.isEmpty() || preemptor.isEmpty()) {
      return Optional.empty();
    }
    Job v = victim.get();
    Job f = preemptor.get();
    if (!mayRequeue(s, v)
        || f.getState() != JobState.QUEUED
        || !QueueAttributes.preemptor(s, f.getQueue())
        || !QueueAttributes.started(s, f.getQueue())) {
      return Optional.empty();
    }
    return Optional.of(
        Event.newBuilder()
            .setJobKillRequested(
                JobKillRequested.newBuilder()
                    .setJobId(v.getId())
                    .setReason("preempted by job " + f.getId() + " of queue " + f.getQueue())
                    .setPreemptedBy(f.getId())));
  }

  /**
   * Whether a preemptor's job may requeue {@code job}: running, untouched, rerunnable, preemptable.
   */
  static boolean mayRequeue(ClusterState s, Job job) {
    return job.getState() == JobState.RUNNING
        && job.getDeleteRequestedBy().isEmpty()
        && job.getRerunnable()
        && QueueAttributes.preemptable(s, job.getQueue());
  }
}
