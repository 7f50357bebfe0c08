package dev.berth.scheduler;

import dev.berth.proto.NodeAllocation;
import java.util.List;

/**
 * A running job as preemption sees it: what preempting it frees (everything it holds if it is to be
 * requeued; only its CPUs if it is to be suspended, since a suspended job keeps its memory), when
 * it started (the youngest are preempted first, losing the least work), and whether it is already
 * being killed, so that what it holds will soon be free without preempting anything more.
 */
public record PreemptableJob(
    String jobId, long start, List<NodeAllocation> allocations, boolean ending, boolean suspend) {
  public PreemptableJob {
    allocations = List.copyOf(allocations);
  }

  public PreemptableJob(
      String jobId, long start, List<NodeAllocation> allocations, boolean ending) {
    this(jobId, start, allocations, ending, false);
  }
}
