package dev.berth.mom.os.cgroup;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many tasks (processes and threads) all jobs of a mom may have at once, by the pids
 * controller: three quarters of what the kernel allows on the host. A fork bomb inside a job then
 * stops at the cap and leaves the rest to the mom, the server and the system; without it, it takes
 * every process id, and a daemon that cannot start a thread or a job's starter is as good as gone.
 * The cap is for all of a mom's jobs together, on its root cgroup: one job's storm can keep the
 * node's other jobs from forking while it lasts, never the node's daemons.
 */
final class TaskCap {
  /** The control file that holds the cap, in v1's pids hierarchy and in v2. */
  static final String FILE = "pids.max";

  private TaskCap() {}

  /** The cap for this host; 0 (no cap) where the kernel's limits cannot be read. */
  static long system() {
    return of(Path.of("/proc/sys/kernel"));
  }

  /** Three quarters of the smaller of {@code pid_max} and {@code threads-max} in {@code dir}. */
  static long of(Path dir) {
    try {
      return Math.min(number(dir.resolve("pid_max")), number(dir.resolve("threads-max"))) / 4 * 3;
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The number a sysctl file holds. Read through a buffer in one read: the kernel answers a read of
   * such a file at a later offset with end of file, and Files.readString, which sizes its first
   * read by the file's length (0 in /proc), read only the first digit (a cap of 0: none).
   */
  private static long number(Path file) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file)) {
      String line = in.readLine();
      if (line == null) {
        throw new IOException(file + " is empty");
      }
      return Long.parseLong(line.strip());
    }
  }
}
