package dev.berth.daemon;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the berth-starter binary the moms launch jobs with. */
final class Starter {
  private Starter() {}

  static Path locate() {
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
}
