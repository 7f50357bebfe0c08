package dev.berth.tools.testing;

import dev.berth.client.testing.FakeServer;
import dev.berth.tools.cli.CliContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** The context the commands run in under test: a fake server, a fixed clock and version. */
public final class FakeCli {
  /** The instant the fake clock shows: Mon Nov 30 10:00:00 2026 UTC. */
  public static final long NOW = 1796032800L;

  public static final String VERSION = "test-1.0";

  private FakeCli() {}

  /** What a command run against {@code server} sees. */
  public static CliContext context(FakeServer server) {
    return new CliContext(
        server, Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC), () -> VERSION);
  }
}
