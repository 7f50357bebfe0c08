package dev.berth.core;

import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.berth.proto.Job;
import dev.berth.proto.JobDelta;
import java.util.Map;

/**
 * A job as what differs from another (a {@link JobDelta}), field by field: how array subjobs are
 * written in snapshots and alter events, so that each holds only what is its own.
 *
 * <p>A job made by {@link #apply} keeps the very objects of {@code base} for every field the delta
 * leaves alone, so a subjob rebuilt from its parent shares the parent's environment in memory, as a
 * subjob the submission made does.
 */
public final class JobDeltas {
  private JobDeltas() {}

  /**
   * What {@code to} has that {@code from} does not: {@code apply(from, between(from, to))} is to.
   */
  public static JobDelta between(Job from, Job to) {
    Job.Builder set = Job.newBuilder();
    JobDelta.Builder delta = JobDelta.newBuilder();
    for (FieldDescriptor field : Job.getDescriptor().getFields()) {
      boolean has = has(to, field);
      if (!has) {
        if (has(from, field)) {
          delta.addCleared(field.getNumber());
        }
      } else if (!has(from, field) || !to.getField(field).equals(from.getField(field))) {
        set.setField(field, to.getField(field));
      }
    }
    return delta.setSet(set).build();
  }

  /**
   * {@code base} with {@code delta}'s fields. A cleared field this release does not know (a newer
   * one's) is one {@code base} cannot have: nothing to clear.
   */
  public static Job apply(Job base, JobDelta delta) {
    Job.Builder job = base.toBuilder();
    for (int number : delta.getClearedList()) {
      FieldDescriptor field = Job.getDescriptor().findFieldByNumber(number);
      if (field != null) {
        job.clearField(field);
      }
    }
    for (Map.Entry<FieldDescriptor, Object> e : delta.getSet().getAllFields().entrySet()) {
      job.setField(e.getKey(), e.getValue());
    }
    return job.build();
  }

  private static boolean has(Job job, FieldDescriptor field) {
    return field.isRepeated() ? job.getRepeatedFieldCount(field) > 0 : job.hasField(field);
  }
}
