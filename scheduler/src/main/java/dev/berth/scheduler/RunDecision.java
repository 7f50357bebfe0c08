package dev.berth.scheduler;

import dev.berth.proto.NodeAllocation;
import java.util.List;

/** The scheduler's proposal to start one job on these nodes and CPUs. */
public record RunDecision(String jobId, List<NodeAllocation> allocations) {
  public RunDecision {
    allocations = List.copyOf(allocations);
  }
}
