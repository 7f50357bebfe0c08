package dev.berth.server.state;

import dev.berth.proto.Job;
import java.util.Comparator;

/**
 * The order in which queued jobs are considered: higher priority first, then submission order (job
 * number, then array index). qorder swaps two jobs' places: a job's queue_rank, when set, stands
 * for its number.
 */
public record EligibleKey(int priority, long rank, int index, String jobId) {
  public static final Comparator<EligibleKey> ORDER =
      Comparator.comparingInt((EligibleKey k) -> -k.priority)
          .thenComparingLong(EligibleKey::rank)
          .thenComparingInt(EligibleKey::index)
          .thenComparing(EligibleKey::jobId);

  public static EligibleKey of(Job job) {
    return new EligibleKey(job.getPriority(), rank(job), job.getArrayIndex(), job.getId());
  }

  /** The job's place among jobs of equal priority: its queue_rank, or else its number. */
  public static long rank(Job job) {
    return job.getQueueRank() != 0 ? job.getQueueRank() : job.getNumber();
  }
}
