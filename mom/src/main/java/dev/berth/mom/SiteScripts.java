package dev.berth.mom;

import dev.berth.mom.os.HealthCheck;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The site's scripts a mom runs: prologues and epilogues around jobs (Torque's mom_priv) and the
 * node's health check (Torque's node_check_script).
 *
 * @param directory where the prologue and epilogue scripts are; null for none
 * @param timeout how long each prologue or epilogue may run (Torque's $prologalarm)
 * @param healthCheck the health check script; null for none
 * @param healthEvery the check runs at every this many status reports (0: only around jobs)
 * @param healthAtJobStart whether it runs before each job starts here (Torque's jobstart)
 * @param healthAtJobEnd whether it runs after each job has ended here (Torque's jobend)
 */
public record SiteScripts(
    Path directory,
    Duration timeout,
    Path healthCheck,
    int healthEvery,
    boolean healthAtJobStart,
    boolean healthAtJobEnd) {
  /** Torque's default $prologalarm. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);

  public static final SiteScripts NONE =
      new SiteScripts(null, DEFAULT_TIMEOUT, null, 0, false, false);

  /** The health check to run, within the scripts' time limit; null where there is none. */
  public HealthCheck check() {
    return healthCheck == null ? null : new HealthCheck(healthCheck, timeout);
  }
}
