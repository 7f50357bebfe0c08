package dev.berth.core;

/**
 * The items of a mom's status report that say what the mom is, beyond the node's figures (loadave,
 * physmem, ...): what momctl -d shows.
 */
public final class MomStatus {
  /** The mom's version, e.g. "0.1.0" (BerthVersion.NUMBER). */
  public static final String VERSION = "version";

  /** The mom's own durable directory (its job records). */
  public static final String HOME = "home";

  /** How the mom isolates jobs: its cgroup driver and root, or why it has none. */
  public static final String CGROUPS = "cgroups";

  /** When the mom started, in epoch seconds. */
  public static final String STARTED = "mom_started";

  /**
   * The jobs the mom has a part of, separated by spaces (Torque's {@code jobs=} of a node's
   * status); the server shows each caller only those whose ids qstat would show them.
   */
  public static final String JOBS = "jobs";

  /** Seconds between the mom's status reports (Torque's name for it). */
  public static final String UPDATE_INTERVAL = "status_update_time";

  /**
   * What the mom could not clean up yet (trees jobs left that it keeps trying to remove); absent
   * when nothing.
   */
  public static final String CLEANUP = "cleanup";

  private MomStatus() {}
}
