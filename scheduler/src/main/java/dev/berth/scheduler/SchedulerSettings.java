package dev.berth.scheduler;

/**
 * How a cycle chooses: the priority weights; how many of the highest-priority jobs that cannot
 * start get a reserved start that later jobs must not delay ({@code backfillDepth}, as OpenPBS's
 * backfill_depth; 0 lets any job that fits pass any that does not, so a wide job may wait for
 * ever); and whether a job that cannot start stops every job after it ({@code strictOrdering}).
 */
public record SchedulerSettings(
    PriorityWeights weights, int backfillDepth, boolean strictOrdering) {
  public static final SchedulerSettings DEFAULT =
      new SchedulerSettings(PriorityWeights.DEFAULT, 1, false);

  public SchedulerSettings {
    if (backfillDepth < 0) {
      throw new IllegalArgumentException("backfill_depth must be 0 or more, not " + backfillDepth);
    }
  }
}
