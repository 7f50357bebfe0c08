package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What /proc and a cgroup say about one process: which job it belongs to is decided from these. */
public final class ProcessFacts {
  private ProcessFacts() {}

  /** The session id of {@code pid}, or -1 if it is gone. */
  public static long session(long pid) {
    return ProcTable.session(Path.of("/proc", Long.toString(pid), "stat"));
  }

  /** The parent of {@code pid}, or -1 if it is gone. */
  public static long parent(long pid) {
    String[] f = ProcTable.fields(Path.of("/proc", Long.toString(pid), "stat"));
    try {
      return f == null ? -1 : Long.parseLong(f[1]);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** Whether {@code pid} is listed in a cgroup's cgroup.procs file. */
  public static boolean inCgroup(Path procsFile, long pid) {
    try (var lines = Files.lines(procsFile)) {
      String wanted = Long.toString(pid);
      return lines.anyMatch(wanted::equals);
    } catch (IOException | java.io.UncheckedIOException e) {
      return false;
    }
  }
}
