package dev.berth.core.pbs;

/** How an attribute's value is written, checked and combined by {@code +=} and {@code -=}. */
public enum ValueType {
  BOOLEAN,
  INTEGER,
  /** A whole number of at least 0: a limit (max_user_queuable). */
  COUNT,
  /** A Torque size ({@code 512kb}, {@code 1mb}). */
  SIZE,
  /** A length of time of a second or more, {@code [[[DD:]HH:]MM:]SS}; kept in seconds. */
  DURATION,
  STRING,
  /** Comma-separated items; {@code +=} adds items and {@code -=} removes them. */
  LIST,
  /**
   * One value per resource: {@code resources_max.walltime}; and Torque's other attributes of this
   * type, one value per name after the dot ({@code Walltime.Remaining}).
   */
  RESOURCE,
  /** Shares of a named user or account ({@code fairshare_user.alice = 10}): 1 or more. */
  SHARES,
  /**
   * How a queue's running jobs may be preempted: {@code off}, {@code requeue} or {@code suspend}.
   */
  PREEMPT_MODE;

  /** Whether the attribute holds one value per name after a dot ({@code resources_max.mem}). */
  public boolean named() {
    return this == RESOURCE || this == SHARES;
  }
}
