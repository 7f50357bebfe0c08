package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads process facts from /proc. */
final class ProcTable {
  private final Path proc;

  ProcTable(Path proc) {
    this.proc = proc;
  }

  /** Pids whose session id is {@code sid}. */
  List<Long> inSession(long sid) {
    List<Long> result = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path dir : dirs) {
        long session = session(dir.resolve("stat"));
        if (session == sid) {
          result.add(Long.parseLong(dir.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      // /proc vanished under us; nothing to report
    }
    return result;
  }

  /** Field 6 of /proc/PID/stat, or -1 if the process is gone. */
  static long session(Path stat) {
    try {
      String s = Files.readString(stat);
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[3]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
