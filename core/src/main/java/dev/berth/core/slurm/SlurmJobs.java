package dev.berth.core.slurm;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How Slurm's commands name a Berth job and what it holds. */
public final class SlurmJobs {
  private SlurmJobs() {}

  /** Whether sbatch submitted {@code job}, which then runs as Slurm runs a batch job. */
  public static boolean sbatch(Job job) {
    return job.getSubmitStyle().equals(AttributeNames.SBATCH);
  }

  /**
   * Slurm's job id of {@code job} as a number (its SLURM_JOB_ID, {@code %j}, sacct's JobIDRaw): a
   * task of an sbatch array has its own; any other job (a task of qsub's array too) its number.
   */
  public static long number(Job job) {
    return job.getTaskNumber() > 0 ? job.getTaskNumber() : job.getNumber();
  }

  /** A Slurm job id ({@code 12}, an array task {@code 12_3}) in Berth's form ({@code 12[3]}). */
  public static String toBerth(String id) {
    int under = id.indexOf('_');
    return under < 0 ? id : id.substring(0, under) + "[" + id.substring(under + 1) + "]";
  }

  /** The CPUs a job holds on each of its nodes, in exec_host order. */
  public static Map<String, Integer> cpusByNode(List<NodeAllocation> allocations) {
    Map<String, Integer> cpus = new LinkedHashMap<>();
    for (NodeAllocation a : allocations) {
      cpus.merge(a.getNode(), a.getCpusCount(), Integer::sum);
    }
    return cpus;
  }
}
