package dev.berth.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Berth's background processes (berth serve, berth kafka), found through their pid files. */
final class Daemons {
  private Daemons() {}

  static Optional<ProcessHandle> running(BerthHome home) {
    return running(home.pidFile(), "serve");
  }

  /** The live process named in {@code pidFile} whose command line has {@code word}. */
  static Optional<ProcessHandle> running(Path pidFile, String word) {
    try {
      if (!Files.exists(pidFile)) {
        return Optional.empty();
      }
      long pid = Long.parseLong(Files.readString(pidFile).trim());
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(p -> p.info().commandLine().map(c -> c.contains(word)).orElse(true));
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
