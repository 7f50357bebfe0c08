package dev.berth.tools.cli;

import dev.berth.client.Connector;
import dev.berth.client.Invocation;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.function.Supplier;

/**
 * What a command needs besides its invocation: how to reach the server, the clock (qstat's elapsed
 * times, JSON timestamps) and the version printed in JSON output (read only when needed). Tests
 * pass fakes.
 */
public record CliContext(Connector connector, Clock clock, Supplier<String> version) {
  public static final CliContext DEFAULT =
      new CliContext(Connector.SERVER, Clock.systemUTC(), BerthVersion::current);

  public long nowSeconds() {
    return clock.millis() / 1000;
  }

  /**
   * The time zone for printed dates: the invocation's {@code TZ} if Java knows it, else the JVM's.
   */
  public static ZoneId zone(Invocation invocation) {
    String tz = invocation.env().get("TZ");
    if (tz != null && !tz.isBlank()) {
      try {
        return ZoneId.of(tz.startsWith(":") ? tz.substring(1) : tz);
      } catch (DateTimeException e) {
        // an unknown or file-based TZ value: fall back to the JVM's own zone
      }
    }
    return ZoneId.systemDefault();
  }
}
