package dev.berth.it;

import java.util.List;

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
}
