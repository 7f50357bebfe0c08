package dev.berth.scheduler;

import java.util.List;
import java.util.Set;

/**
 * What the scheduler sees of one node: its fixed facts and what is still free on it.
 *
 * @param usable a mom reports for it and it is neither down nor offline
 * @param idle no job holds any of its CPUs
 * @param physmem bytes, 0 when the mom has not reported (memory is then not constrained)
 * @param hosting which jobs its mom can run
 */
public record NodeCapacity(
    String name,
    Set<String> properties,
    List<Integer> cpuIds,
    List<Integer> freeCpus,
    long physmem,
    long memFree,
    int gpus,
    int gpusFree,
    boolean usable,
    boolean idle,
    Hosting hosting) {

  public NodeCapacity {
    properties = Set.copyOf(properties);
    cpuIds = List.copyOf(cpuIds);
    freeCpus = List.copyOf(freeCpus);
  }

  public int np() {
    return cpuIds.size();
  }

  /** The same node with nothing running on it, as submit-time feasibility checks see it. */
  public NodeCapacity empty() {
    return new NodeCapacity(
        name, properties, cpuIds, cpuIds, physmem, physmem, gpus, gpus, true, true, hosting);
  }
}
