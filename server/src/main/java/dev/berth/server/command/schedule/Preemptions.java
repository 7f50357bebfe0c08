package dev.berth.server.command.schedule;

import dev.berth.core.Suspensions;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.JobResumed;
import dev.berth.proto.JobState;
import dev.berth.proto.JobSuspendConfirmed;
import dev.berth.proto.JobSuspended;
import dev.berth.proto.NodeAllocation;
import dev.berth.scheduler.Preemption;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.NodeUsage;
import java.util.Optional;

/**
 * The scheduler's preemptions and resumptions, re-checked against the current state (the plan was
 * made from an older view). A victim must still run, started and untouched by a delete, in a queue
 * whose preempt_mode is what the plan says (and be rerunnable to be requeued); the job it makes
 * room for must still be queued in a started preemptor queue. A requeued victim is killed with the
 * reason and its end requeues it; a suspended one lends its CPUs to preemptors' jobs until it is
 * resumed, once no running job holds any of them.
 */
public final class Preemptions {
  private Preemptions() {}

  public static Optional<Event.Builder> preempt(ClusterState s, Preemption p) {
    Optional<Job> victim = s.job(p.victim());
    Optional<Job> preemptor = s.job(p.forJob());
    if (victim.isEmpty() || preemptor.isEmpty()) {
      return Optional.empty();
    }
    Job v = victim.get();
    Job f = preemptor.get();
    boolean allowed = p.suspend() ? maySuspend(s, v) : mayRequeue(s, v);
    if (!allowed
        || f.getState() != JobState.QUEUED
        || !QueueAttributes.preemptor(s, f.getQueue())
        || !QueueAttributes.started(s, f.getQueue())) {
      return Optional.empty();
    }
    String reason = "preempted by job " + f.getId() + " of queue " + f.getQueue();
    if (p.suspend()) {
      return Optional.of(
          Event.newBuilder()
              .setJobSuspended(
                  JobSuspended.newBuilder()
                      .setJobId(v.getId())
                      .setSuspendedFor(f.getId())
                      .setReason("suspended: " + reason)));
    }
    return Optional.of(
        Event.newBuilder()
            .setJobKillRequested(
                JobKillRequested.newBuilder()
                    .setJobId(v.getId())
                    .setReason(reason)
                    .setPreemptedBy(f.getId())));
  }

  /**
   * Every node has frozen a suspended job: from now on its CPUs are lent. Not for a job being
   * killed, whose end frees them anyway.
   */
  public static Optional<Event.Builder> confirm(ClusterState s, String jobId) {
    Optional<Job> job = s.job(jobId);
    if (job.isEmpty()
        || !Suspensions.suspended(job.get())
        || job.get().getSuspendConfirmed()
        || !job.get().getDeleteRequestedBy().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        Event.newBuilder()
            .setJobSuspendConfirmed(JobSuspendConfirmed.newBuilder().setJobId(jobId)));
  }

  /** A suspended job resumes if no running job holds any of its CPUs. */
  public static Optional<Event.Builder> resume(ClusterState s, String jobId) {
    Optional<Job> job = s.job(jobId);
    if (job.isEmpty() || !resumable(s, job.get())) {
      return Optional.empty();
    }
    return Optional.of(Event.newBuilder().setJobResumed(JobResumed.newBuilder().setJobId(jobId)));
  }

  /**
   * Suspended and confirmed (before that its CPUs are its own, and its nodes are still freezing
   * it), not being killed, and every CPU of it free of running jobs.
   */
  static boolean resumable(ClusterState s, Job job) {
    if (!Suspensions.suspended(job)
        || !job.getSuspendConfirmed()
        || !job.getDeleteRequestedBy().isEmpty()) {
      return false;
    }
    for (NodeAllocation a : job.getExecNodesList()) {
      NodeUsage u = s.usage(a.getNode());
      if (a.getCpusList().stream().anyMatch(u.cpuJobs()::containsKey)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a preemptor's job may requeue {@code job}: running, untouched, rerunnable, in a queue
   * whose preempt_mode is requeue.
   */
  static boolean mayRequeue(ClusterState s, Job job) {
    return running(job)
        && job.getRerunnable()
        && QueueAttributes.PREEMPT_REQUEUE.equals(QueueAttributes.preemptMode(s, job.getQueue()));
  }

  /**
   * Whether a preemptor's job may suspend {@code job}: running (started, so that its mom can freeze
   * it), untouched, not suspended already, in a queue whose preempt_mode is suspend, and not on a
   * CPU another suspended job lends (a CPU has one lender).
   */
  static boolean maySuspend(ClusterState s, Job job) {
    return running(job)
        && job.getStartTime() > 0
        && QueueAttributes.PREEMPT_SUSPEND.equals(QueueAttributes.preemptMode(s, job.getQueue()))
        && !onLentCpus(s, job);
  }

  static boolean onLentCpus(ClusterState s, Job job) {
    for (NodeAllocation a : job.getExecNodesList()) {
      NodeUsage u = s.usage(a.getNode());
      if (!u.lentCpus().isEmpty() && a.getCpusList().stream().anyMatch(u.lentCpus()::containsKey)) {
        return true;
      }
    }
    return false;
  }

  private static boolean running(Job job) {
    return job.getState() == JobState.RUNNING
        && job.getDeleteRequestedBy().isEmpty()
        && job.getSuspendedAt() == 0;
  }
}
