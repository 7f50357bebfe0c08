package dev.berth.mom.os;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Test helpers for real processes: who is left in a session, and cleaning up after a test. */
public final class ProcessSessions {
  private static final ProcTable PROC = new ProcTable(Path.of("/proc"));

  private ProcessSessions() {}

  /** Live (non-zombie) processes whose session id is {@code sid}, the leader included. */
  public static List<Long> members(long sid) {
    return PROC.inSession(sid);
  }

  /**
   * Whether a process of the session runs {@code command} (its name in /proc/PID/comm): a job's
   * script has reached a line, where merely counting members would also count what its owner's
   * login profile runs first.
   */
  public static boolean runs(long sid, String command) {
    return !running(sid, command).isEmpty();
  }

  /** The processes of the session that run {@code command}. */
  public static List<Long> running(long sid, String command) {
    List<Long> found = new java.util.ArrayList<>();
    for (long pid : members(sid)) {
      try {
        if (Files.readString(Path.of("/proc", Long.toString(pid), "comm"))
            .strip()
            .equals(command)) {
          found.add(pid);
        }
      } catch (java.io.IOException e) {
        // ended meanwhile
      }
    }
    return found;
  }

  /**
   * The state of a process as /proc shows it: R running, S sleeping, T stopped, D in
   * uninterruptible sleep (as a process frozen by a cgroup v1 freezer shows); '?' if it is gone.
   */
  public static char state(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return s.charAt(s.lastIndexOf(')') + 2);
    } catch (java.io.IOException e) {
      return '?';
    }
  }

  /** Whether {@code pid} exists and is not a zombie. */
  public static boolean alive(long pid) {
    return ProcTable.session(Path.of("/proc", Long.toString(pid), "stat")) >= 0;
  }

  /** The process group of {@code pid}, or -1. */
  public static long processGroup(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[2]);
    } catch (Exception e) {
      return -1;
    }
  }

  /** SIGKILLs every process of the session, the leader included. */
  public static void kill(long sid) {
    for (long pid : members(sid)) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  /** Waits until {@code condition} holds; false if it did not within {@code timeout}. */
  public static boolean await(Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
