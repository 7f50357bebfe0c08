package dev.berth.security.seal;

import dev.berth.core.QuietLog;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The log of letters a daemon refused: each kind once at first, then at most once a minute with how
 * many came meanwhile, so that a member sending forged letters in a loop cannot fill the disk.
 */
public final class Refusals {
  private final QuietLog quiet;

  public Refusals(Logger log, Clock clock) {
    this.quiet = new QuietLog(log::warn, Duration.ofMinutes(1), clock::millis);
  }

  /** Logs that a letter was refused; {@code reason} should not hold per-message details. */
  public void refused(String reason) {
    quiet.say("letters", reason, "refused a letter: " + reason);
  }
}
