package dev.berth.tools.cli;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;

/** A command line a command refuses before sending anything. */
public final class Usage {
  private Usage() {}

  /** Prints what is wrong (when the exception says) and the usage text; returns the status. */
  public static int refuse(Invocation invocation, Getopt.UsageException e, String usage) {
    if (e.getMessage() != null) {
      invocation.error(e.getMessage());
    }
    invocation.err().print(usage);
    return ExitCodes.USAGE;
  }
}
