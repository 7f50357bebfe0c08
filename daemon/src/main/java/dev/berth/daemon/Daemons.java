package dev.berth.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The running berth serve of a home directory, found through its pid file. */
final class Daemons {
  private Daemons() {}

  static Optional<ProcessHandle> running(BerthHome home) {
    try {
      if (!Files.exists(home.pidFile())) {
        return Optional.empty();
      }
      long pid = Long.parseLong(Files.readString(home.pidFile()).trim());
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(p -> p.info().commandLine().map(c -> c.contains("serve")).orElse(true));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  static List<String> tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return all.subList(Math.max(0, all.size() - lines), all.size());
    } catch (IOException e) {
      return List.of("(cannot read " + log + ": " + e.getMessage() + ")");
    }
  }
}
