package dev.berth.tools.cli;

import dev.berth.client.Invocation;

/**
 * {@code --version} on a status command's line (Torque's qstat and pbsnodes take it as the option
 * {@code -} with the word {@code version}): the command prints its version instead of running.
 */
public final class VersionRequested extends Exception {
  private static final long serialVersionUID = 1L;

  public VersionRequested() {
    super(null, null, false, false);
  }

  /** Prints the version on standard error, as Torque does; returns the exit status. */
  public static int answer(Invocation invocation, CliContext context) {
    invocation.err().println("Version: " + context.version().get());
    return 0;
  }
}
