package dev.berth.server.state;

import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/** What jobs hold on one node: CPU id to job id, reserved memory and GPUs. Derived from jobs. */
public record NodeUsage(PSortedMap<Integer, String> cpuJobs, long memReserved, int gpusReserved) {
  public static final NodeUsage NONE = new NodeUsage(TreePMap.empty(), 0, 0);

  public boolean idle() {
    return cpuJobs.isEmpty();
  }
}
