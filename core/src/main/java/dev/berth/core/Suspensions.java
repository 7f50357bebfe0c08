package dev.berth.core;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;

/**
 * A running job's time while it is suspended does not count as its walltime: how long it has run
 * and when its walltime runs out follow from its start and the time it spent suspended.
 */
public final class Suspensions {
  private Suspensions() {}

  public static boolean suspended(Job job) {
    return job.getState() == JobState.RUNNING && job.getSuspendedAt() > 0;
  }

  /** The seconds it has been suspended, the current suspension's up to {@code now} included. */
  public static long suspendedSeconds(Job job, long now) {
    long current = job.getSuspendedAt() > 0 ? Math.max(0, now - job.getSuspendedAt()) : 0;
    return job.getSuspendedSeconds() + current;
  }

  /** The seconds a started job has run by {@code now}, its suspensions left out. */
  public static long ranSeconds(Job job, long now) {
    return Math.max(0, now - job.getStartTime() - suspendedSeconds(job, now));
  }
}
