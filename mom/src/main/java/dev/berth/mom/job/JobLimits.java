package dev.berth.mom.job;

import dev.berth.core.Sizes;
import dev.berth.mom.os.ProcessLimits;
import dev.berth.proto.ResourceRequest;

/**
 * The per-process limits of Torque's resources, as Torque's mom sets them with setrlimit before the
 * job's exec: {@code pcput} is each process's CPU time, {@code file} its largest file, the smaller
 * of {@code pvmem} and {@code vmem} its address space (never below {@code pmem}), {@code pmem} its
 * resident size (which Linux does not enforce: the job's cgroup holds its memory), and {@code nice}
 * its nice value. Unlike Torque's, {@code pmem} sets no data-segment limit: that would make a
 * rank's allocation fail inside the MPI library instead of the node's cgroup ending it with a
 * report that names the node.
 */
public final class JobLimits {
  private JobLimits() {}

  public static ProcessLimits of(ResourceRequest r) {
    long addressSpace = smallerSet(r.getPvmem(), r.getVmem());
    if (addressSpace > 0 && addressSpace < r.getPmem()) {
      addressSpace = r.getPmem(); // Torque does not make (p)vmem less than pmem either
    }
    String file = r.getValuesOrDefault("file", "");
    String nice = r.getValuesOrDefault("nice", "");
    return new ProcessLimits(
        r.getPcput(),
        file.isEmpty() ? 0 : Sizes.parseBytes(file),
        addressSpace,
        r.getPmem(),
        nice.isEmpty() ? -1 : niceValue(nice));
  }

  /**
   * The server takes 0 to 19 only; a job it accepted before it checked that runs at the nearest
   * value a job may have, never above the node's other work.
   */
  private static int niceValue(String nice) {
    try {
      return Math.max(0, Math.min(19, Integer.parseInt(nice.trim())));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static long smallerSet(long a, long b) {
    if (a <= 0) {
      return Math.max(b, 0);
    }
    return b <= 0 ? a : Math.min(a, b);
  }
}
