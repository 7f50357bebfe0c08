package dev.berth.tools.cli;

import dev.berth.client.Connector;
import dev.berth.core.BerthVersion;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * What a command needs besides its invocation: how to reach the server, the clock (qstat's elapsed
 * times, JSON timestamps) and the version printed in JSON output (read only when needed). Tests
 * pass fakes.
 */
public record CliContext(Connector connector, Clock clock, Supplier<String> version) {
  public static final CliContext DEFAULT =
      new CliContext(Connector.SERVER, Clock.systemUTC(), () -> BerthVersion.NUMBER);

  public long nowSeconds() {
    return clock.millis() / 1000;
  }
}
