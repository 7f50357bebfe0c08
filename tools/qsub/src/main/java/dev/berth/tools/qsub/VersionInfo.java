package dev.berth.tools.qsub;

import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** {@code --version} and {@code --about}, the long options Torque's qsub and qalter take. */
final class VersionInfo {
  private VersionInfo() {}

  /** Berth's version, stamped into the jar at build time. */
  static String version() {
    try (InputStream in = VersionInfo.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** Answers {@code --word}; returns the exit status. */
  static int answer(Invocation inv, String word, String usage) {
    switch (word) {
      case "version" -> inv.out().println("Version: " + version());
      case "about" -> {
        inv.out().println(inv.program() + " (Berth " + version() + ")");
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
