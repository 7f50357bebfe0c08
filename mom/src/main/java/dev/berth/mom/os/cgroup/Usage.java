package dev.berth.mom.os.cgroup;

/**
 * What a job's cgroup used. A figure this host cannot measure is {@link #UNKNOWN}.
 *
 * @param cpuNanos CPU time of every process that was in the cgroup, in nanoseconds
 * @param memoryPeakBytes the highest memory use of the cgroup as a whole (resources_used.mem)
 * @param memswPeakBytes the highest memory plus swap use (resources_used.vmem, as OpenPBS's cgroup
 *     hook reports it); unknown where swap is not accounted
 * @param oomKills how many processes the kernel killed for exceeding the cgroup's memory limit
 */
public record Usage(long cpuNanos, long memoryPeakBytes, long memswPeakBytes, long oomKills) {
  public static final long UNKNOWN = -1;
}
