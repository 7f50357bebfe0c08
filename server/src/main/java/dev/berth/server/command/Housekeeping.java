package dev.berth.server.command;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobDeleted;
import dev.berth.proto.JobPurged;
import dev.berth.proto.JobReleased;
import dev.berth.proto.JobState;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Node;
import dev.berth.proto.NodeUpdated;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.command.job.Dependencies;
import dev.berth.server.command.node.NodeReports;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.ClusterState.PurgeKey;
import dev.berth.server.state.DependencyIndex;
import org.pcollections.PSortedSet;

/**
 * The server's own decisions over time and after other events: purging completed jobs after
 * keep_completed, starting W jobs at their execution time, opening and closing reservations'
 * windows, releasing or deleting jobs whose dependencies were decided, and handling a node whose
 * mom stopped answering.
 */
public final class Housekeeping {
  /** Bounds the work of one tick so a backlog cannot stall the command pipeline. */
  private static final int MAX_PURGES_PER_TICK = 1000;

  private Housekeeping() {}

  static Outcome tick(ClusterState s, Context ctx) {
    Outcome out = new Outcome();
    long now = ctx.nowSeconds();
    long minKeep = minKeepCompleted(s);
    int purged = 0;
    for (PurgeKey k : s.completed()) {
      if (purged >= MAX_PURGES_PER_TICK || k.compTime() + minKeep > now) {
        break; // ordered by completion time: no later job can have expired either
      }
      Job job = s.job(k.jobId()).orElseThrow();
      if (k.compTime() + keepCompleted(s, job) <= now) {
        out.event(Event.newBuilder().setJobPurged(JobPurged.newBuilder().setJobId(k.jobId())));
        purged++;
      }
    }
    for (Job job : s.jobs()) {
      if (job.getState() == JobState.WAITING && job.getExecutionTime() <= now) {
        out.event(
            Event.newBuilder()
                .setJobReleased(
                    JobReleased.newBuilder()
                        .setJobId(job.getId())
                        .setHolds(Holds.getDefaultInstance())));
      }
    }
    // after the releases: a reservation that ends deletes its jobs, released ones included
    ReservationCommands.tick(s, now, out);
    return out;
  }

  private static long minKeepCompleted(ClusterState s) {
    long min = ServerAttributes.number(s, ServerAttributeNames.KEEP_COMPLETED);
    for (var q : s.queues().values()) {
      var keep = QueueAttributes.get(q, QueueAttributeNames.KEEP_COMPLETED);
      if (keep.isPresent()) {
        min = Math.min(min, Long.parseLong(keep.get()));
      }
    }
    return min;
  }

  private static long keepCompleted(ClusterState s, Job job) {
    return s.queue(job.getQueue())
        .flatMap(q -> QueueAttributes.get(q, QueueAttributeNames.KEEP_COMPLETED))
        .map(Long::parseLong)
        .orElse(ServerAttributes.number(s, ServerAttributeNames.KEEP_COMPLETED));
  }

  /**
   * Jobs held for dependencies that are now met are released; impossible ones deleted. Only the
   * waiters the index has found decided are looked at, so the work is what the events decided.
   */
  static Outcome dependents(ClusterState s) {
    Outcome out = new Outcome();
    DependencyIndex index = s.dependencies();
    for (String waiter : index.decided()) {
      PSortedSet<String> members = index.members(waiter);
      boolean impossible = index.impossible(waiter);
      // the members share their dependencies: one says why for all
      String reason = impossible ? Dependencies.why(s.job(members.first()).orElseThrow(), s) : "";
      for (String id : members) {
        out.event(
            !impossible
                ? Event.newBuilder()
                    .setJobReleased(
                        JobReleased.newBuilder()
                            .setJobId(id)
                            .setHolds(Holds.newBuilder().setSystem(true)))
                : Event.newBuilder()
                    .setJobDeleted(JobDeleted.newBuilder().setJobId(id).setReason(reason)));
      }
    }
    return out;
  }

  /** The node's mom stopped answering: mark it down and deal with the jobs it ran. */
  static Outcome nodeDown(ClusterState s, String name, Context ctx) {
    Outcome out = new Outcome();
    Node node = s.node(name).orElse(null);
    if (node == null || node.getDown()) {
      return out;
    }
    out.event(
        Event.newBuilder()
            .setNodeUpdated(
                NodeUpdated.newBuilder()
                    .setNode(node.toBuilder().setDown(true))
                    .addChanged("down")));
    for (Job job : s.jobs()) {
      if (job.getState() != JobState.RUNNING || !NodeReports.nodesOf(job).contains(name)) {
        continue;
      }
      NodeReports.lost(out, job, "node " + name + " went down", ctx);
      for (String other : NodeReports.nodesOf(job)) {
        if (!other.equals(name)) {
          out.notice(
              other,
              MomInbound.newBuilder()
                  .setKill(
                      KillJob.newBuilder()
                          .setJobId(job.getId())
                          .setReason("node " + name + " of the job went down"))
                  .build());
        }
      }
    }
    return out;
  }
}
