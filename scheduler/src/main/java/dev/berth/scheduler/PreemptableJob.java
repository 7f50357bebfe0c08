package dev.berth.scheduler;

import dev.berth.proto.NodeAllocation;
import java.util.List;

/**
 * A running job as preemption sees it: what it holds, when it started (the youngest are requeued
 * first, losing the least work), and whether it is already being killed, so that what it holds will
 * soon be free without requeuing anything more.
 */
public record PreemptableJob(
    String jobId, long start, List<NodeAllocation> allocations, boolean ending) {
  public PreemptableJob {
    allocations = List.copyOf(allocations);
  }
}
