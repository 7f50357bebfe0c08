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

  /**
   * The lines written to {@code log} after its first {@code from} bytes, read from there (berth up
   * asks every 200 ms, and the log grows with every start); none if unreadable.
   */
  static List<String> linesSince(Path log, long from) {
    try (java.nio.channels.SeekableByteChannel in = Files.newByteChannel(log)) {
      if (in.size() <= from) {
        return List.of();
      }
      in.position(from);
      return new String(
              java.nio.channels.Channels.newInputStream(in).readAllBytes(),
              java.nio.charset.StandardCharsets.UTF_8)
          .lines()
          .toList();
    } catch (IOException e) {
      return List.of();
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
