package dev.berth.it;

import java.time.Duration;

/**
 * How much longer than on this host the waits for daemons to start and stop may take: the system
 * property {@code berth.it.time-scale} (default 1). A guest in software emulation runs a JVM 20-50
 * times slower than the host (Guest sets it there); waits for what a test asserts keep their own
 * bounds.
 */
final class TimeScale {
  private TimeScale() {}

  static Duration of(Duration onThisHost) {
    return onThisHost.multipliedBy(Long.getLong("berth.it.time-scale", 1));
  }
}
