package dev.berth.daemon;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the parts of a Berth installation the moms need: the job starter and the job tools. */
final class Installation {
  private Installation() {}

  /** berth-starter, which the moms start every job process with. */
  static Path starter() {
    String configured = System.getProperty("berth.starter", System.getenv("BERTH_STARTER"));
    if (configured != null) {
      return Path.of(configured);
    }
    Path fromBuild = Path.of("mom", "target", "native", "berth-starter");
    if (Files.isExecutable(fromBuild)) {
      return fromBuild.toAbsolutePath();
    }
    throw new IllegalStateException(
        "cannot find berth-starter: set -Dberth.starter or BERTH_STARTER (ops/bin/berth does)");
  }

  /**
   * The directory with pbsdsh and pbs_tmrsh, which jobs call; null if this installation has none
   * (jobs then run, but cannot start tasks on other nodes).
   */
  static Path tools() {
    String configured = System.getProperty("berth.tools", System.getenv("BERTH_TOOLS"));
    Path dir = configured != null ? Path.of(configured) : Path.of("ops", "bin").toAbsolutePath();
    return Files.isExecutable(dir.resolve("pbs_tmrsh")) ? dir.toAbsolutePath() : null;
  }
}
