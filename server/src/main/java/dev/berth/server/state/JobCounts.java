package dev.berth.server.state;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.util.Arrays;

/**
 * How many jobs are in each state, as qstat -B and -Q count them: plain jobs and subjobs, not the
 * array jobs that stand for their subjobs. Immutable; kept per queue in the state so that those
 * commands, which scripts and benchmarks poll, cost the same with 100 jobs as with 100,000.
 */
public final class JobCounts {
  public static final JobCounts NONE = new JobCounts(new int[JobState.COMPLETED.getNumber() + 1]);

  private final int[] byState;

  private JobCounts(int[] byState) {
    this.byState = byState;
  }

  /** Whether {@code job}'s kind is counted: every job but an array job's own entry. */
  static boolean counts(Job job) {
    return job.getArrayRequest().isEmpty();
  }

  JobCounts plus(JobState state, int delta) {
    int[] next = byState.clone();
    next[state.getNumber()] += delta;
    return new JobCounts(next);
  }

  public int count(JobState state) {
    return byState[state.getNumber()];
  }

  public int total() {
    return Arrays.stream(byState).sum();
  }

  public JobCounts plus(JobCounts other) {
    int[] next = byState.clone();
    for (int i = 0; i < next.length; i++) {
      next[i] += other.byState[i];
    }
    return new JobCounts(next);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobCounts c && Arrays.equals(byState, c.byState);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(byState);
  }

  @Override
  public String toString() {
    return "JobCounts" + Arrays.toString(byState);
  }
}
