package dev.berth.security.seal;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The log of letters a daemon refused: each kind once at first, then at most once a minute with how
 * many came meanwhile, so that a member sending forged letters in a loop cannot fill the disk. Not
 * thread-safe: each actor keeps its own.
 */
public final class Refusals {
  private static final long QUIET_MILLIS = 60_000;
  private static final int MAX_KINDS = 1000;

  private record Seen(long loggedAt, long since) {}

  private final Logger log;
  private final Clock clock;
  private final Map<String, Seen> seen = new HashMap<>();

  public Refusals(Logger log, Clock clock) {
    this.log = log;
    this.clock = clock;
  }

  /** Logs that a letter was refused; {@code reason} should not hold per-message details. */
  public void refused(String reason) {
    long now = clock.millis();
    Seen last = seen.get(reason);
    if (last != null && now - last.loggedAt() < QUIET_MILLIS) {
      seen.put(reason, new Seen(last.loggedAt(), last.since() + 1));
      return;
    }
    if (seen.size() >= MAX_KINDS) {
      seen.clear();
    }
    long more = last == null ? 0 : last.since();
    seen.put(reason, new Seen(now, 0));
    if (more > 0) {
      log.warn("refused a letter: {} ({} more like it in the last minute)", reason, more);
    } else {
      log.warn("refused a letter: {}", reason);
    }
  }
}
