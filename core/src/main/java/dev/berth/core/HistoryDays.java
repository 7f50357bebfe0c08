package dev.berth.core;

/**
 * How many days of finished jobs one history request (qstat -H, sacct, berth report) may cover: the
 * server reads an accounting file per day for it, so the span is bounded, and the commands that
 * take any dates (sacct's {@code -S}) ask for the latest days within it.
 */
public final class HistoryDays {
  /** The most days one request may cover, today included. */
  public static final int MAX = 366;

  private HistoryDays() {}
}
