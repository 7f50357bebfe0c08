package dev.berth.mom.os;

import java.util.ArrayList;
import java.util.List;

/**
 * The resource limits and nice value a job's processes start with, set by the starter right before
 * the exec (setrlimit, soft and hard alike but for the CPU time, and setpriority): every process
 * the job starts inherits them and none can raise them. A value of 0 (nice: -1) sets nothing.
 *
 * @param cpuSeconds RLIMIT_CPU: the CPU seconds of each process (the kernel sends SIGXCPU, and
 *     SIGKILL a second later, at the hard limit)
 * @param fileBytes RLIMIT_FSIZE: the largest file a process may write (SIGXFSZ, then EFBIG)
 * @param addressSpaceBytes RLIMIT_AS: each process's virtual memory (allocations beyond it fail)
 * @param residentBytes RLIMIT_RSS: shown by {@code ulimit -m}; Linux does not act on it
 * @param nice the nice value, 0 to 19, or -1 to leave the starter's
 */
public record ProcessLimits(
    long cpuSeconds, long fileBytes, long addressSpaceBytes, long residentBytes, int nice) {
  public static final ProcessLimits NONE = new ProcessLimits(0, 0, 0, 0, -1);

  public ProcessLimits {
    if (cpuSeconds < 0 || fileBytes < 0 || addressSpaceBytes < 0 || residentBytes < 0) {
      throw new IllegalArgumentException("a negative limit");
    }
    if (nice < -1 || nice > 19) {
      throw new IllegalArgumentException("nice " + nice + " is not 0 to 19");
    }
  }

  /** The starter's options for these limits. */
  List<String> starterOptions() {
    List<String> options = new ArrayList<>();
    limit(options, "cpu", cpuSeconds);
    limit(options, "fsize", fileBytes);
    limit(options, "as", addressSpaceBytes);
    limit(options, "rss", residentBytes);
    if (nice >= 0) {
      options.addAll(List.of("--nice", Integer.toString(nice)));
    }
    return options;
  }

  private static void limit(List<String> options, String name, long value) {
    if (value > 0) {
      options.addAll(List.of("--limit", name + "=" + value));
    }
  }
}
