package dev.berth.scheduler;

import dev.berth.proto.NodeAllocation;
import java.util.List;

/**
 * A job suspended for a preemptor's: it keeps its memory, and its CPUs are lent to preemptors' jobs
 * only. {@code idleCpus} are the lent CPUs no job runs on now (CPU ids only, no memory); once all
 * of them are idle and its nodes usable, it is {@code resumable}.
 */
public record SuspendedJob(
    String jobId, long suspendedAt, List<NodeAllocation> idleCpus, boolean resumable) {
  public SuspendedJob {
    idleCpus = List.copyOf(idleCpus);
  }
}
