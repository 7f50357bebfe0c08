package dev.berth.tools.qsub;

import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.core.BerthVersion;

/** {@code --version} and {@code --about}, the long options Torque's qsub and qalter take. */
final class VersionInfo {
  private VersionInfo() {}

  /** Answers {@code --word}; returns the exit status. */
  static int answer(Invocation inv, String word, String usage) {
    switch (word) {
      case "version" -> inv.out().println("Version: " + BerthVersion.NUMBER);
      case "about" -> {
        inv.out().println(inv.program() + " (Berth " + BerthVersion.NUMBER + ")");
        inv.out().println("Torque 6 compatible job submission for the Berth resource manager");
      }
      default -> {
        inv.error("unknown option --" + word);
        inv.err().println(usage);
        return ExitCodes.USAGE;
      }
    }
    return ExitCodes.OK;
  }
}
