package dev.berth.server.query;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.SchedulingPriority;
import dev.berth.scheduler.JobPriority;
import dev.berth.scheduler.Plan;
import dev.berth.scheduler.Priorities;
import dev.berth.scheduler.Waiting;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.command.job.Dependencies;
import dev.berth.server.command.schedule.StateView;
import dev.berth.server.state.ClusterState;
import java.util.Optional;

/**
 * What qstat shows of the scheduler's view of a queued job: its priority now and the parts it is
 * the sum of, and from the last cycle why it is not running ("Not Running: ...", in place of its
 * comment, as Torque's scheduler writes it) and its reserved start. Derived, not state: worked out
 * for each answer, and a new primary server has the cycle's part after its first cycle.
 */
final class SchedulingNotes {
  private final ClusterState state;
  private final boolean scheduling;
  private final Priorities priorities;
  private final Optional<Plan> plan;

  SchedulingNotes(ClusterState s, long now, Optional<Plan> plan) {
    long cpus = 0;
    for (Node n : s.nodes().values()) {
      cpus += n.getCpuIdsCount();
    }
    StateView view = new StateView(s, now);
    this.priorities =
        new Priorities(
            ServerAttributes.scheduler(s).weights(),
            now,
            cpus,
            view.queuePriorities(),
            view::fairShare);
    this.plan = plan;
    this.state = s;
    this.scheduling = ServerAttributes.flag(s, ServerAttributeNames.SCHEDULING);
  }

  /**
   * The job with its notes if it is queued; a job held for its dependencies with the ones it still
   * waits for (Slurm's Reason=Dependency); else as it is.
   */
  Job of(Job job) {
    if (job.getState() == JobState.HELD
        && job.getHolds().getSystem()
        && job.getDependenciesCount() > 0
        && job.getComment().isEmpty()) {
      String waiting = Dependencies.waitingFor(job, state);
      return waiting.isEmpty()
          ? job
          : job.toBuilder()
              .setComment(new Waiting("waiting for its dependencies " + waiting, 0).comment())
              .build();
    }
    if (job.getState() != JobState.QUEUED || !job.getArrayRequest().isEmpty()) {
      return job;
    }
    JobPriority p = priorities.of(job);
    Job.Builder b =
        job.toBuilder()
            .setSchedPriority(
                SchedulingPriority.newBuilder()
                    .setTotal(Math.round(p.value()))
                    .setAge(Math.round(p.age()))
                    .setJobSize(Math.round(p.jobSize()))
                    .setQueue(Math.round(p.queue()))
                    .setUser(Math.round(p.user()))
                    .setFairShare(Math.round(p.fairShare())));
    if (!scheduling) {
      return b.setComment(new Waiting("scheduling is off (qmgr: scheduling = False)", 0).comment())
          .build();
    }
    if (!QueueAttributes.started(state, job.getQueue())) {
      return b.setComment(new Waiting("queue " + job.getQueue() + " is stopped", 0).comment())
          .build();
    }
    plan.ifPresent(
        cycle -> {
          Waiting w = cycle.waitingOf(job.getId());
          b.setComment(w.comment()).setEstimatedStartTime(w.estimatedStart());
        });
    return b.build();
  }
}
