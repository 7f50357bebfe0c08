package dev.berth.client;

import dev.berth.core.ServerLocation;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One run of a command-line tool: its arguments, environment, working directory and standard
 * streams, and how to reach the server. Commands take this instead of touching System.*, so tests
 * can run them in-process.
 */
public record Invocation(
    String program,
    List<String> args,
    Map<String, String> env,
    Path cwd,
    InputStream in,
    PrintStream out,
    PrintStream err) {

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

  public BerthClient connect() throws ServerUnavailableException {
    return BerthClient.connect(ServerLocation.clientSocket(env));
  }

  /** Prints {@code program: message} on stderr, as Torque's commands report errors. */
  public void error(String message) {
    err.println(program + ": " + message);
  }
}
