package dev.berth.mom.job;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.os.ProcessUsage.Sample;
import dev.berth.proto.ResourceRequest;
import java.util.Optional;

/**
 * Torque's limits on what a whole job uses, over all its processes on all its nodes, which its mom
 * enforces by polling: {@code cput} (CPU seconds), {@code vmem} (virtual memory) and, where the job
 * has no cgroup to hold it, {@code mem} (resident memory). Over one, the job is killed with
 * Torque's words for it and Torque's exit status.
 *
 * @param mem 0 when not polled: unset, or held by the job's cgroups
 */
public record UsageLimits(long cput, long mem, long vmem) {
  /** A limit the job went over: Torque's line for it (after "job killed: ") and exit status. */
  public record Over(String message, int exitStatus) {}

  /** The polled limits of a job; {@code inCgroups}: its memory is held by cgroups on its nodes. */
  public static UsageLimits of(ResourceRequest r, boolean inCgroups) {
    return new UsageLimits(r.getCput(), inCgroups ? 0 : r.getMem(), r.getVmem());
  }

  /** Whether there is anything to poll. */
  public boolean any() {
    return cput > 0 || mem > 0 || vmem > 0;
  }

  /** The first limit {@code used} (the job's usage on all its nodes) is over, if any. */
  public Optional<Over> over(Sample used) {
    if (cput > 0 && used.cpuSeconds() > cput) {
      return Optional.of(
          new Over(
              "cput " + used.cpuSeconds() + " exceeded limit " + cput,
              ExitStatus.OVER_CPUT.code()));
    }
    if (mem > 0 && used.residentBytes() > mem) {
      return Optional.of(
          new Over(
              "mem " + used.residentBytes() + " exceeded limit " + mem,
              ExitStatus.OVER_MEMORY.code()));
    }
    if (vmem > 0 && used.virtualBytes() > vmem) {
      return Optional.of(
          new Over(
              "vmem " + used.virtualBytes() + " exceeded limit " + vmem,
              ExitStatus.OVER_MEMORY.code()));
    }
    return Optional.empty();
  }
}
