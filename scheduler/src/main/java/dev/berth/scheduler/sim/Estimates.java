package dev.berth.scheduler.sim;

import dev.berth.core.BadValueException;
import dev.berth.core.Durations;

/**
 * What a simulated job without a requested time is planned with. A trace's requested time is the
 * user's estimate and becomes the job's walltime; where the trace has none, backfill cannot know
 * when a running job gives its nodes back, so it reserves nothing behind it: {@code none} shows
 * that, {@code runtime} plans each such job with its real run time (the literature's "exact
 * estimates", the best backfill can do) and a fixed time plans each with that (a queue's default
 * walltime, say). An estimate only plans: the job still runs its real run time, and one still
 * running past its estimate is planned to end one estimate later, and so on.
 */
public record Estimates(Kind kind, long seconds) {
  public enum Kind {
    NONE,
    RUNTIME,
    FIXED
  }

  public static final Estimates NONE = new Estimates(Kind.NONE, 0);

  public Estimates {
    if (kind == Kind.FIXED && seconds < 1) {
      throw new IllegalArgumentException("a fixed estimate must be at least 1 s, not " + seconds);
    }
  }

  /** {@code none}, {@code runtime}, or a time ({@code 3600}, {@code 1:00:00}). */
  public static Estimates parse(String text) {
    switch (text) {
      case "none":
        return NONE;
      case "runtime":
        return new Estimates(Kind.RUNTIME, 0);
      default:
        try {
          return new Estimates(Kind.FIXED, Durations.parseSeconds(text));
        } catch (BadValueException e) {
          throw new IllegalArgumentException(
              "--missing-time: expected none, runtime or a time ([[HH:]MM:]SS), not '"
                  + text
                  + "': "
                  + e.getMessage());
        }
    }
  }

  /** Whether {@code job} is planned with this estimate rather than its own requested time. */
  boolean estimates(SwfJob job) {
    return job.requestedTime() <= 0 && kind != Kind.NONE;
  }

  /** The walltime {@code job} is planned with, 0 for none. */
  long walltime(SwfJob job) {
    if (job.requestedTime() > 0) {
      return job.requestedTime();
    }
    return switch (kind) {
      case NONE -> 0;
      case RUNTIME -> Math.max(1, job.runtime());
      case FIXED -> seconds;
    };
  }

  /** As {@code berth simulate} prints it. */
  String describe() {
    return switch (kind) {
      case NONE -> "none";
      case RUNTIME -> "their run time";
      case FIXED -> seconds + " s";
    };
  }
}
