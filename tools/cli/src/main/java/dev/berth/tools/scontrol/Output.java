package dev.berth.tools.scontrol;

import dev.berth.client.Invocation;
import dev.berth.core.ControlCharacters;

/** Where scontrol's failures go: standard error, unless {@code -Q} keeps it quiet. */
final class Output {
  private final Invocation inv;
  private final boolean quiet;

  Output(Invocation inv, boolean quiet) {
    this.inv = inv;
    this.quiet = quiet;
  }

  /** Prints {@code lines} (unless quiet) and returns scontrol's failing status, 1. */
  int fail(String lines) {
    if (!quiet) {
      for (String line : lines.split("\n")) {
        inv.err().println(ControlCharacters.escape(line));
      }
    }
    return 1;
  }
}
