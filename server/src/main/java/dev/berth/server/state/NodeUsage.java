package dev.berth.server.state;

import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * What jobs hold on one node: CPU id to the running job on it, reserved memory and GPUs (their
 * number, and GPU id to job), and the CPUs of suspended jobs (CPU id to job id), which keep their
 * memory and GPUs but lend their CPUs to preemptors' jobs. Derived from jobs.
 */
public record NodeUsage(
    PSortedMap<Integer, String> cpuJobs,
    long memReserved,
    int gpusReserved,
    PSortedMap<Integer, String> gpuJobs,
    PSortedMap<Integer, String> lentCpus) {
  public static final NodeUsage NONE =
      new NodeUsage(TreePMap.empty(), 0, 0, TreePMap.empty(), TreePMap.empty());

  /** No job holds anything on the node, running or suspended. */
  public boolean idle() {
    return cpuJobs.isEmpty() && lentCpus.isEmpty();
  }
}
