package dev.berth.daemon;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The --home option every berth subcommand takes. */
final class HomeOptions {
  @Option(
      names = "--home",
      paramLabel = "DIR",
      description = "State directory (default: $BERTH_HOME, else ~/.berth).")
  Path home;

  BerthHome home() {
    return BerthHome.resolve(home, System.getenv());
  }

  /** Whether the home is the default one (no --home, no BERTH_HOME). */
  boolean isDefault() {
    return home == null && System.getenv("BERTH_HOME") == null;
  }

  Path socket(Path explicit) {
    if (explicit != null) {
      return explicit.toAbsolutePath();
    }
    return home().socket(isDefault(), System.getProperty("user.name").equals("root"));
  }
}
