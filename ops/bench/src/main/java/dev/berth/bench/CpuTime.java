package dev.berth.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * CPU time a process has used so far (user plus system, its own threads only), from /proc: what a
 * daemon spends per job, apart from the job's own processes.
 */
final class CpuTime {
  /** /proc counts in USER_HZ ticks, 100 a second on every architecture Berth runs on. */
  private static final double TICKS_PER_MILLISECOND = 0.1;

  private CpuTime() {}

  /**
   * CPU time the whole machine has used so far on every CPU (user, nice, system, interrupts and
   * steal; not idle or waiting for I/O): what a job costs with everything it takes to run it.
   */
  static double machineMillis() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
      busy += Long.parseLong(f[i]);
    }
    return busy / TICKS_PER_MILLISECOND;
  }

  static double millis(long pid) throws IOException {
    return fromStat(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
  }

  /**
   * CPU time of a JVM's just-in-time compiler threads (HotSpot names them "C1 CompilerThreadN" and
   * "C2 CompilerThreadN"): what a daemon spends compiling rather than running its code.
   */
  static double compilerMillis(long pid) throws IOException {
    double sum = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks) {
        try {
          if (Files.readString(task.resolve("comm")).matches("C[12] CompilerThre.*\\s*")) {
            sum += fromStat(Files.readString(task.resolve("stat")));
          }
        } catch (NoSuchFileException ended) {
          // HotSpot ends idle compiler threads; their time leaves the count with them
        }
      }
    }
    return sum;
  }

  private static double fromStat(String stat) {
    // Fields after the command name, which is in parentheses and may hold spaces: state is the
    // first, utime the 12th and stime the 13th.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_MILLISECOND;
  }
}
