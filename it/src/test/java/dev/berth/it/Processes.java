package dev.berth.it;

import java.util.List;

/** Processes on this host, found by their command line. */
final class Processes {
  private Processes() {}

  static List<Long> matching(String commandLine) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(commandLine)).orElse(false))
        .map(ProcessHandle::pid)
        .toList();
  }
}
