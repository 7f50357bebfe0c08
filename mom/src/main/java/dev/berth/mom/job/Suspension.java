package dev.berth.mom.job;

/**
 * A job's suspensions on one node: how long it was frozen in the suspensions that have ended, and
 * since when it is frozen now. Its walltime leaves all of that time out, as the server's does.
 *
 * @param endedMillis the frozen time of the suspensions that have ended
 * @param sinceMillis when the current suspension began (epoch millis), 0 while not suspended
 */
public record Suspension(long endedMillis, long sinceMillis) {
  /** A job that was never suspended. */
  public static final Suspension NONE = new Suspension(0, 0);

  public Suspension {
    if (endedMillis < 0 || sinceMillis < 0) {
      throw new IllegalArgumentException(
          "negative suspension times " + endedMillis + " " + sinceMillis);
    }
  }

  public boolean suspended() {
    return sinceMillis > 0;
  }

  /** Suspended from {@code now} on; one that is suspended already stays as it is. */
  public Suspension begin(long now) {
    return suspended() ? this : new Suspension(endedMillis, now);
  }

  /** Running again from {@code now} on; one that is not suspended stays as it is. */
  public Suspension end(long now) {
    return suspended() ? new Suspension(frozenMillis(now), 0) : this;
  }

  /** The time frozen by {@code now}, the current suspension's included. */
  public long frozenMillis(long now) {
    return endedMillis + (suspended() ? Math.max(0, now - sinceMillis) : 0);
  }

  /** The walltime of a job launched at {@code launchedMillis}, by {@code now}. */
  public long ranMillis(long launchedMillis, long now) {
    return Math.max(0, now - launchedMillis - frozenMillis(now));
  }

  /** As the mom's records keep it: {@code ENDED_MILLIS SINCE_MILLIS}. */
  public String line() {
    return endedMillis + " " + sinceMillis;
  }

  /**
   * @throws IllegalArgumentException if {@code line} is not what {@link #line} writes
   */
  public static Suspension parse(String line) {
    String[] f = line.strip().split(" ");
    if (f.length != 2) {
      throw new IllegalArgumentException("not two numbers: '" + line.strip() + "'");
    }
    return new Suspension(Long.parseLong(f[0]), Long.parseLong(f[1]));
  }
}
