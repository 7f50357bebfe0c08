package dev.berth.tools.testing;

import dev.berth.client.Invocation;
import dev.berth.client.testing.FakeServer;
import dev.berth.tools.cli.CliContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** One in-process run of a command: its exit status and what it printed. */
public record Run(int status, String out, String err) {
  /** A command entry point taking an invocation and a context. */
  @FunctionalInterface
  public interface Entry {
    int run(Invocation invocation, CliContext context);
  }

  /** Runs {@code entry} as {@code program args...} with TZ=UTC against {@code server}. */
  public static Run of(Entry entry, FakeServer server, String program, String... args) {
    return of(entry, server, Map.of("TZ", "UTC"), program, args);
  }

  public static Run of(
      Entry entry, FakeServer server, Map<String, String> env, String program, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Invocation invocation =
        new Invocation(
            program,
            List.of(args),
            env,
            Path.of("/tmp"),
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    int status = entry.run(invocation, FakeCli.context(server));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
