package dev.berth.client;

import dev.berth.core.ServerLocation;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * One run of a command-line tool: its arguments, environment, working directory, standard streams
 * and {@link Origin}. Commands take this instead of touching System.*, so that tests run them
 * in-process and the server runs them for the native command client.
 */
public record Invocation(
    String program,
    List<String> args,
    Map<String, String> env,
    Path cwd,
    InputStream in,
    PrintStream out,
    PrintStream err,
    Origin origin) {

  /** An invocation started in this process. */
  public Invocation(
      String program,
      List<String> args,
      Map<String, String> env,
      Path cwd,
      InputStream in,
      PrintStream out,
      PrintStream err) {
    this(program, args, env, cwd, in, out, err, Origin.ofProcess());
  }

  /** The same run with other arguments. */
  public Invocation withArgs(List<String> other) {
    return new Invocation(program, other, env, cwd, in, out, err, origin);
  }

  public static Invocation ofProcess(String program, String[] args) {
    return new Invocation(
        program,
        List.of(args),
        System.getenv(),
        Path.of(System.getProperty("user.dir")),
        System.in,
        System.out,
        System.err);
  }

  /**
   * The time zone for printed and parsed dates: the invocation's {@code TZ} if Java knows it, else
   * the zone of the host the command was started on.
   */
  public ZoneId zone() {
    String tz = env.get("TZ");
    if (tz != null && !tz.isBlank()) {
      try {
        return ZoneId.of(tz.startsWith(":") ? tz.substring(1) : tz);
      } catch (DateTimeException e) {
        // an unknown or file-based TZ value: fall back to the host's own zone
      }
    }
    return origin.zone();
  }

  /**
   * Connects to the server. With standby servers listed in {@code BERTH_SERVER}, waits up to {@code
   * BERTH_FAILOVER_WAIT} seconds (default 30) for one of them to answer, so that a command issued
   * during a takeover goes through once it is over; a call that gets no reply within {@code
   * BERTH_REPLY_TIMEOUT} seconds (default 60) fails instead of hanging on a paused server.
   */
  public ServerConnection connect() throws ServerUnavailableException {
    if (origin.server() != null) {
      return origin.server().connect(this);
    }
    List<Path> sockets = ServerLocation.clientSockets(env);
    if (sockets.size() == 1) {
      return BerthClient.connect(sockets.get(0));
    }
    return BerthClient.connect(
        sockets, seconds(FAILOVER_WAIT_ENV, 30), seconds(REPLY_TIMEOUT_ENV, 60));
  }

  /** Whether {@code BERTH_SERVER} lists standby servers beside the active one. */
  public boolean standbysListed() {
    return origin.server() == null && ServerLocation.clientSockets(env).size() > 1;
  }

  private Duration seconds(String variable, long otherwise) {
    try {
      return Duration.ofSeconds(Long.parseLong(env.getOrDefault(variable, "").strip()));
    } catch (NumberFormatException e) {
      return Duration.ofSeconds(otherwise);
    }
  }

  public static final String FAILOVER_WAIT_ENV = "BERTH_FAILOVER_WAIT";

  /** With standbys listed: how long a call may wait for its reply before trying another server. */
  public static final String REPLY_TIMEOUT_ENV = "BERTH_REPLY_TIMEOUT";

  /** Prints {@code program: message} on stderr, as Torque's commands report errors. */
  public void error(String message) {
    err.println(program + ": " + message);
  }
}
