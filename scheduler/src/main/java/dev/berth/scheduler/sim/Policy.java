package dev.berth.scheduler.sim;

import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.SchedulerSettings;
import java.util.List;
import java.util.Locale;

/**
 * The scheduling policies a simulation compares, as the server's own settings: the same planning
 * code runs them all.
 */
public enum Policy {
  /** First come, first served: a job that cannot start holds back every job after it. */
  FIFO {
    @Override
    public SchedulerSettings settings(PriorityWeights weights, int backfillDepth) {
      return new SchedulerSettings(weights, 0, true);
    }
  },
  /** Any job that fits passes any that does not (backfill_depth 0): a wide job may starve. */
  FIRSTFIT {
    @Override
    public SchedulerSettings settings(PriorityWeights weights, int backfillDepth) {
      return new SchedulerSettings(weights, 0, false);
    }
  },
  /**
   * By priority with backfill: the first {@code backfillDepth} jobs that cannot start get a
   * reserved start that later jobs must not delay (1 is EASY backfill).
   */
  BACKFILL {
    @Override
    public SchedulerSettings settings(PriorityWeights weights, int backfillDepth) {
      return new SchedulerSettings(weights, backfillDepth, false);
    }
  };

  public abstract SchedulerSettings settings(PriorityWeights weights, int backfillDepth);

  /** The policy of this name ({@code fifo}), or an error listing the names there are. */
  public static Policy named(String name) {
    for (Policy p : values()) {
      if (p.name().toLowerCase(Locale.ROOT).equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "no scheduling policy '"
            + name
            + "'; there is: "
            + List.of(values()).toString().toLowerCase(Locale.ROOT));
  }
}
