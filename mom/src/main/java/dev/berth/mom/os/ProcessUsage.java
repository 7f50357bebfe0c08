package dev.berth.mom.os;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a job's processes on this node use now, read from /proc as Torque's mom reads it: the CPU
 * time of each process and of the children it has waited for, its resident size (VmRSS) and its
 * virtual size (VmSize), summed over the processes of the job's sessions and, where it has them,
 * its cgroups (which also hold processes that left their session).
 */
public final class ProcessUsage {
  /**
   * Clock ticks in /proc/PID/stat: USER_HZ, which the kernel's ABI fixes at 100 on the
   * architectures Berth runs on (x86-64, arm64), whatever the kernel's own tick rate.
   */
  private static final long TICKS_PER_SECOND = 100;

  private final ProcTable proc;

  public ProcessUsage() {
    this(Path.of("/proc"));
  }

  ProcessUsage(Path proc) {
    this.proc = new ProcTable(proc);
  }

  /** Usage: CPU seconds, resident and virtual bytes. */
  public record Sample(long cpuSeconds, long residentBytes, long virtualBytes) {
    public static final Sample NONE = new Sample(0, 0, 0);

    public Sample plus(Sample other) {
      return new Sample(
          cpuSeconds + other.cpuSeconds,
          residentBytes + other.residentBytes,
          virtualBytes + other.virtualBytes);
    }
  }

  /**
   * The processes whose session is one of {@code sessions} or whose pid one of the {@code
   * cgroupProcs} files lists, summed; processes that end while they are read count as gone.
   */
  public Sample of(Set<Long> sessions, List<Path> cgroupProcs) {
    Set<Long> inCgroups = listed(cgroupProcs);
    long[] sum = new long[3]; // clock ticks, resident and virtual bytes
    proc.forEach(
        (pid, dir) -> {
          String[] stat = ProcTable.fields(dir.resolve("stat"));
          if (stat == null
              || stat.length < 22
              || ProcTable.zombie(stat)
              || !(inCgroups.contains(pid) || sessions.contains(field(stat, 3)))) {
            return;
          }
          sum[0] += field(stat, 11) + field(stat, 12) + field(stat, 13) + field(stat, 14);
          long[] sizes = sizes(dir);
          sum[1] += sizes[0];
          sum[2] += sizes[1];
        });
    return new Sample(sum[0] / TICKS_PER_SECOND, sum[1], sum[2]);
  }

  private static Set<Long> listed(Collection<Path> procsFiles) {
    Set<Long> pids = new HashSet<>();
    for (Path file : procsFiles) {
      try (var lines = Files.lines(file)) {
        lines.forEach(
            l -> {
              try {
                pids.add(Long.parseLong(l.trim()));
              } catch (NumberFormatException e) {
                // not a pid
              }
            });
      } catch (IOException | UncheckedIOException e) {
        // the cgroup is gone or not made yet
      }
    }
    return pids;
  }

  private static long field(String[] stat, int index) {
    try {
      return Long.parseLong(stat[index]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** VmRSS and VmSize of /proc/PID/status in bytes (kernel threads have neither: 0). */
  private static long[] sizes(Path dir) {
    long[] sizes = new long[2];
    try {
      for (String line : Files.readAllLines(dir.resolve("status"))) {
        if (line.startsWith("VmRSS:")) {
          sizes[0] = kilobytes(line);
        } else if (line.startsWith("VmSize:")) {
          sizes[1] = kilobytes(line);
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone meanwhile
    }
    return sizes;
  }

  private static long kilobytes(String line) {
    String[] words = line.trim().split("\\s+");
    return Long.parseLong(words[1]) * 1024;
  }
}
