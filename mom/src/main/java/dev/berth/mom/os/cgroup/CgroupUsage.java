package dev.berth.mom.os.cgroup;

/**
 * What a job's cgroup used. A figure this host cannot measure is {@link #UNKNOWN}.
 *
 * @param cpuNanos CPU time of every process that was in the cgroup, in nanoseconds
 * @param memoryPeakBytes the highest memory use of the cgroup as a whole (resources_used.mem)
 * @param memswPeakBytes the highest memory plus swap use (resources_used.vmem, as OpenPBS's cgroup
 *     hook reports it); unknown where swap is not accounted
 * @param oomKills how many processes the kernel killed for exceeding the cgroup's memory limit
 * @param ioReadBytes bytes the cgroup read from the node's disks
 * @param ioWriteBytes bytes the cgroup wrote to them (see {@link BlockIo} for what counts)
 */
public record CgroupUsage(
    long cpuNanos,
    long memoryPeakBytes,
    long memswPeakBytes,
    long oomKills,
    long ioReadBytes,
    long ioWriteBytes) {
  public static final long UNKNOWN = -1;

  /** Usage without block I/O figures. */
  public CgroupUsage(long cpuNanos, long memoryPeakBytes, long memswPeakBytes, long oomKills) {
    this(cpuNanos, memoryPeakBytes, memswPeakBytes, oomKills, UNKNOWN, UNKNOWN);
  }
}
