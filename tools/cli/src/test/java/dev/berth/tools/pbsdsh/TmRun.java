package dev.berth.tools.pbsdsh;

import dev.berth.client.Invocation;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/** One in-process run of a job-side command (pbsdsh, pbs_tmrsh) and what it printed. */
public record TmRun(int status, String out, String err) {
  /** A job-side command's entry point. */
  @FunctionalInterface
  public interface Entry {
    int run(Invocation invocation, TmContext context);
  }

  /** The user the runs are made as. */
  public static final String USER = "alice";

  /** A trap that catches nothing. */
  public static final SignalTrap NO_SIGNALS = (names, handler) -> () -> {};

  /** Runs {@code program args...} with {@code env}, in {@code cwd}, with {@code stdin}. */
  public static TmRun of(
      Entry entry,
      SignalTrap signals,
      Map<String, String> env,
      Path cwd,
      String stdin,
      String program,
      String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Invocation invocation =
        new Invocation(
            program,
            List.of(args),
            env,
            cwd,
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    int status = entry.run(invocation, new TmContext(signals, USER));
    return new TmRun(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** A trap that hands its handler to the test, and tells whether it is installed. */
  public static final class ManualTrap implements SignalTrap {
    private volatile IntConsumer handler;
    private volatile List<String> names = List.of();

    @Override
    public Installed install(List<String> names, IntConsumer handler) {
      this.names = names;
      this.handler = handler;
      return () -> this.handler = null;
    }

    /** Delivers a signal as the OS would, on another thread. */
    public void raise(int signal) {
      IntConsumer current = handler;
      if (current == null) {
        throw new AssertionError("no handler installed");
      }
      current.accept(signal);
    }

    public boolean installed() {
      return handler != null;
    }

    public List<String> names() {
      return names;
    }
  }
}
