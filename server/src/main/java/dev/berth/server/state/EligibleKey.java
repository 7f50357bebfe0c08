package dev.berth.server.state;

import dev.berth.proto.Job;
import java.util.Comparator;

/**
 * The order in which queued jobs are considered: higher priority first, then submission order (job
 * number, then array index).
 */
public record EligibleKey(int priority, long number, int index, String jobId) {
  public static final Comparator<EligibleKey> ORDER =
      Comparator.comparingInt((EligibleKey k) -> -k.priority)
          .thenComparingLong(EligibleKey::number)
          .thenComparingInt(EligibleKey::index)
          .thenComparing(EligibleKey::jobId);

  public static EligibleKey of(Job job) {
    return new EligibleKey(job.getPriority(), job.getNumber(), job.getArrayIndex(), job.getId());
  }
}
