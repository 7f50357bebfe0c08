package dev.berth.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Processes on this host, found by their command line. */
final class Processes {
  private Processes() {}

  /** Every process whose command line contains {@code commandLine} (starters included). */
  static List<Long> matching(String commandLine) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(commandLine)).orElse(false))
        .map(ProcessHandle::pid)
        .toList();
  }

  /** Processes running {@code program} (its file name) whose arguments contain {@code argument}. */
  static List<Long> running(String program, String argument) {
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info().command().map(c -> c.endsWith("/" + program)).orElse(false)
                    && p.info().commandLine().map(c -> c.contains(argument)).orElse(false))
        .map(ProcessHandle::pid)
        .toList();
  }

  /**
   * Those of {@code pids} in a cgroup below {@code root} (a cluster's cgroup root) in any
   * hierarchy: a cluster's own processes, where other test classes' clusters run beside it.
   */
  static List<Long> inCgroup(List<Long> pids, String root) {
    return pids.stream()
        .filter(
            pid -> {
              try {
                return Files.readString(Path.of("/proc", pid.toString(), "cgroup"))
                    .contains("/" + root + "/");
              } catch (IOException gone) {
                return false;
              }
            })
        .toList();
  }

  /** Those of {@code pids} still running. */
  static List<Long> alive(List<Long> pids) {
    return pids.stream()
        .filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        .toList();
  }

  /**
   * SIGTERM to all of {@code processes} at once (daemons whose jobs are deleted or done by then),
   * SIGKILL to any still there 30 s later.
   */
  static void stop(Collection<Process> processes) throws InterruptedException {
    processes.forEach(Process::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Process p : processes) {
      if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
