package dev.berth.server.command.schedule;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.scheduler.RunLimit;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.JobCounts;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The running-job limits of the state: which apply to a job (its array's slot limit, the server's
 * and its queue's max_running, its user's max_user_run on the server and in the queue), and how
 * many jobs each counts now. Each count is an index of the state, so checking is cheap.
 */
final class RunLimits {
  private RunLimits() {}

  static Map<RunLimit, Integer> of(ClusterState state, Job job) {
    Map<RunLimit, Integer> limits = new HashMap<>(4);
    if (!job.getArrayParent().isEmpty() && job.getArraySlotLimit() > 0) {
      limits.put(RunLimit.array(job.getArrayParent()), job.getArraySlotLimit());
    }
    limit(limits, RunLimit.server(), state.serverAttribute(ServerAttributeNames.MAX_RUNNING));
    limit(
        limits,
        RunLimit.user(job.getEuser()),
        state.serverAttribute(ServerAttributeNames.MAX_USER_RUN));
    state
        .queue(job.getQueue())
        .ifPresent(
            q -> {
              limit(
                  limits,
                  RunLimit.queue(q.getName()),
                  QueueAttributes.get(q, QueueAttributeNames.MAX_RUNNING));
              limit(
                  limits,
                  RunLimit.queueUser(q.getName(), job.getEuser()),
                  QueueAttributes.get(q, QueueAttributeNames.MAX_USER_RUN));
            });
    return limits;
  }

  private static void limit(Map<RunLimit, Integer> limits, RunLimit key, Optional<String> max) {
    max.ifPresent(m -> limits.put(key, (int) Math.min(Integer.MAX_VALUE, Long.parseLong(m))));
  }

  static int running(ClusterState state, RunLimit limit) {
    return switch (limit.scope()) {
      case ARRAY -> state.arrayCounts(limit.array()).running();
      case SERVER -> holdingNodes(state.counts());
      case QUEUE -> holdingNodes(state.counts(limit.queue()));
      case USER -> state.running(new ClusterState.Owner("", limit.user()));
      case QUEUE_USER -> state.running(new ClusterState.Owner(limit.queue(), limit.user()));
    };
  }

  /**
   * Whether starting {@code job} now keeps every running-job limit that applies to it: the check
   * the server makes of each decision, since a plan may come from an older view.
   */
  static boolean within(ClusterState state, Job job) {
    for (Map.Entry<RunLimit, Integer> limit : of(state, job).entrySet()) {
      if (running(state, limit.getKey()) >= limit.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static int holdingNodes(JobCounts c) {
    return c.count(JobState.RUNNING) + c.count(JobState.EXITING);
  }
}
