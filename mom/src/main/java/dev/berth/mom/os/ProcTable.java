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

  /** Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot; or -1. */
  long startTicks(long pid) {
    try {
      String s = Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"));
      return Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[19]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Field 6 of /proc/PID/stat, or -1 if the process is gone or a zombie (it has exited and cannot
   * be signalled; an orphan stays one until init reaps it, which some inits do only lazily).
   */
  static long session(Path stat) {
    try {
      String s = Files.readString(stat);
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      if (f[0].equals("Z") || f[0].equals("X")) {
        return -1;
      }
      return Long.parseLong(f[3]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
