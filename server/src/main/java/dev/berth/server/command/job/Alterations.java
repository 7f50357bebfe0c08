package dev.berth.server.command.job;

import dev.berth.core.JobDeltas;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobAltered;
import dev.berth.proto.SubjobAltered;
import java.util.List;

/**
 * The event that gives a job new attribute values (qalter, qmove, qorder, a node's note): a plain
 * job or an array whole, a subjob as what changed, so that moving an array of 10,000 subjobs writes
 * 10,000 small events rather than 10,000 copies of the array's environment.
 */
public final class Alterations {
  private Alterations() {}

  /**
   * @param changed the attributes that changed, for tracejob
   */
  public static Event.Builder event(Job before, Job after, List<String> changed) {
    if (before.getArrayParent().isEmpty()) {
      return Event.newBuilder()
          .setJobAltered(JobAltered.newBuilder().setJob(after).addAllChanged(changed));
    }
    return Event.newBuilder()
        .setSubjobAltered(
            SubjobAltered.newBuilder()
                .setJobId(before.getId())
                .setChanges(JobDeltas.between(before, after))
                .addAllChanged(changed));
  }
}
