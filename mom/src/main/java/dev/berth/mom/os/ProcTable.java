package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/** Reads process facts from /proc. */
final class ProcTable {
  private final Path proc;

  ProcTable(Path proc) {
    this.proc = proc;
  }

  /** Pids whose session id is {@code sid}. */
  List<Long> inSession(long sid) {
    List<Long> result = new ArrayList<>();
    forEach(
        (pid, dir) -> {
          if (session(dir.resolve("stat")) == sid) {
            result.add(pid);
          }
        });
    return result;
  }

  /** Each process in /proc: its pid and its directory. */
  void forEach(BiConsumer<Long, Path> process) {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path dir : dirs) {
        long pid;
        try {
          pid = Long.parseLong(dir.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        process.accept(pid, dir);
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      // /proc vanished under us; nothing to report
    }
  }

  /** Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot; or -1. */
  long startTicks(long pid) {
    String[] f = fields(proc.resolve(Long.toString(pid)).resolve("stat"));
    try {
      return f == null ? -1 : Long.parseLong(f[19]);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * Field 6 of /proc/PID/stat, or -1 if the process is gone or a zombie (it has exited and cannot
   * be signalled; an orphan stays one until init reaps it, which some inits do only lazily).
   */
  static long session(Path stat) {
    String[] f = fields(stat);
    try {
      return f == null || zombie(f) ? -1 : Long.parseLong(f[3]);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * The fields of a /proc/PID/stat file after the command name (field 3, the state, first), or null
   * when it cannot be read: the command name may hold spaces and parentheses, so it ends at the
   * last ')'.
   */
  static String[] fields(Path stat) {
    try {
      String s = Files.readString(stat);
      return s.substring(s.lastIndexOf(')') + 2).split(" ");
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Whether the fields say the process has exited (a zombie, or dead). */
  static boolean zombie(String[] fields) {
    return fields[0].equals("Z") || fields[0].equals("X");
  }
}
