package dev.berth.server.command.job;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.JobState;
import dev.berth.proto.Queue;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.JobCounts;
import java.util.Optional;

/**
 * How many jobs may wait: a queue's {@code max_queuable} (all users) and {@code max_user_queuable}
 * (per user), and the server's {@code max_user_queuable} (per user, over all queues). As in Torque,
 * every job that has not completed counts (queued, held, waiting, running or exiting), each subjob
 * of an array counts as one job, and a new array counts as its number of subjobs; a submission is
 * refused when it would take the count past the limit. The counts are the state's own (kept as jobs
 * change), so a check costs the same with 100 jobs as with 100,000.
 */
final class QueuedJobLimits {
  private QueuedJobLimits() {}

  /** Refuses {@code adding} more jobs of {@code user} in {@code queue}, naming the limit. */
  static void check(ClusterState s, Queue queue, String user, int adding) {
    Optional<String> queueMax = QueueAttributes.get(queue, QueueAttributeNames.MAX_QUEUABLE);
    Optional<String> queueUserMax =
        QueueAttributes.get(queue, QueueAttributeNames.MAX_USER_QUEUABLE);
    Optional<String> serverUserMax = s.serverAttribute(ServerAttributeNames.MAX_USER_QUEUABLE);
    JobCounts counts = s.counts(queue.getName());
    long inQueue = counts.total() - counts.count(JobState.COMPLETED);
    long usersInQueue = s.unfinished(new ClusterState.Owner(queue.getName(), user));
    long users = s.unfinished(new ClusterState.Owner("", user));
    if (exceeds(queueMax, inQueue, adding)) {
      throw new CommandException(
          Error.Code.MAX_QUEUED,
          "Maximum number of jobs already in queue "
              + queue.getName()
              + ": it holds "
              + inQueue
              + (adding > 1 ? " jobs, this array adds " + adding : " jobs")
              + ", max_queuable = "
              + queueMax.get());
    }
    if (exceeds(queueUserMax, usersInQueue, adding)) {
      throw new CommandException(
          Error.Code.MAX_USER_QUEUED,
          "Maximum number of jobs already in queue "
              + queue.getName()
              + " for user "
              + user
              + ": "
              + usersInQueue
              + (adding > 1 ? " jobs, this array adds " + adding : " jobs")
              + ", the queue's max_user_queuable = "
              + queueUserMax.get());
    }
    if (exceeds(serverUserMax, users, adding)) {
      throw new CommandException(
          Error.Code.MAX_QUEUED,
          "Maximum number of jobs already queued for user "
              + user
              + ": "
              + users
              + (adding > 1 ? " jobs, this array adds " + adding : " jobs")
              + ", the server's max_user_queuable = "
              + serverUserMax.get());
    }
  }

  private static boolean exceeds(Optional<String> max, long count, int adding) {
    return max.isPresent() && count + adding > Long.parseLong(max.get());
  }
}
