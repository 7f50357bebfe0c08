package dev.berth.scheduler;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.util.List;

/**
 * A job that holds nodes, as planning sees it: what it holds and when it will give it back at the
 * latest (its start plus its walltime; {@link #UNKNOWN_END} when it has no walltime).
 */
public record RunningJob(String jobId, long end, List<NodeAllocation> allocations) {
  public static final long UNKNOWN_END = Long.MAX_VALUE;

  public RunningJob {
    allocations = List.copyOf(allocations);
  }

  /** How long a job holds what it gets: its walltime, {@link #UNKNOWN_END} when it has none. */
  public static long duration(Job job) {
    long walltime = job.getResources().getWalltime();
    return walltime > 0 ? walltime : UNKNOWN_END;
  }

  /**
   * The planned end at {@code now} of a job that started at {@code start} with an estimate of
   * {@code estimate} seconds that it is not killed at: the estimate's end, or as many estimates
   * later as the job has outrun, so that it is always after {@code now}.
   */
  public static long renewedEnd(long start, long estimate, long now) {
    long ran = Math.max(0, now - start);
    return start + (ran / estimate + 1) * estimate;
  }

  /** The end of something that starts at {@code start} and lasts {@code duration}, saturating. */
  public static long endOf(long start, long duration) {
    if (duration == UNKNOWN_END || start > UNKNOWN_END - duration) {
      return UNKNOWN_END;
    }
    return start + duration;
  }
}
