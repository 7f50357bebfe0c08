package dev.berth.mom.job;

import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * A job's GPUs on one node: those the server gave it, which it sees, and the node's others, which
 * its devices cgroup denies it; {@code anyNode} says whether it holds GPUs on any of its nodes.
 *
 * <p>Inside the cgroup the CUDA driver finds only the job's GPUs and numbers them from 0, so
 * CUDA_VISIBLE_DEVICES counts 0..G-1, as Slurm's does with ConstrainDevices; PBS_GPUFILE names the
 * node's own numbers, as Torque writes it.
 */
public record JobGpus(List<Gpu> held, List<Gpu> others, boolean anyNode) {
  /** The character-device major number of NVIDIA's GPUs (/dev/nvidiaN). */
  public static final int NVIDIA_MAJOR = 195;

  public JobGpus {
    held = List.copyOf(held);
    others = List.copyOf(others);
  }

  /** The job is refused on this node: its GPUs are not this node's. */
  public static final class Mismatch extends Exception {
    private static final long serialVersionUID = 1L;

    Mismatch(String message) {
      super(message);
    }
  }

  /**
   * The job's part of {@code gpus}, the GPUs this node's mom offers.
   *
   * @throws Mismatch when the job holds a GPU this node does not have, or a number of GPUs without
   *     their ids
   */
  public static JobGpus of(Job job, String node, List<Gpu> gpus) throws Mismatch {
    List<Gpu> held = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (NodeAllocation a : job.getExecNodesList()) {
      if (!a.getNode().equals(node)) {
        continue;
      }
      if (a.getGpuIdsCount() != a.getGpus()) {
        throw new Mismatch(
            "the job holds " + a.getGpus() + " GPUs on " + node + " but not which ones");
      }
      for (int id : a.getGpuIdsList()) {
        if (id < 0 || id >= gpus.size()) {
          throw new Mismatch(
              "node "
                  + node
                  + " has no GPU "
                  + id
                  + ": its mom offers "
                  + gpus.size()
                  + " (berth mom --gpus)");
        }
        if (ids.add(id)) {
          held.add(gpus.get(id));
        }
      }
    }
    List<Gpu> others = gpus.stream().filter(g -> !ids.contains(g.getIndex())).toList();
    return new JobGpus(held, others, any(job));
  }

  /**
   * CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER for a job that holds GPUs here, and PBS_GPUFILE (the
   * node's copy at {@code gpufile}) for a job with GPUs anywhere. Where it holds none, a task
   * started from another node's environment loses that node's CUDA_VISIBLE_DEVICES (the cgroup
   * leaves it none to find). Values the job brought give way.
   */
  public void addTo(Map<String, String> env, Path gpufile) {
    addTo(env, gpufile, List.of());
  }

  /**
   * As {@link #addTo(Map, Path)}, for a task that uses only {@code task} of the job's GPUs here
   * (srun --gpus-per-task; none: all of them), numbered as the job sees them: its
   * CUDA_VISIBLE_DEVICES names only those, as Slurm's per-task binding gives each task its own.
   *
   * @throws IllegalArgumentException when one of them is not the job's here, or named twice
   */
  public void addTo(Map<String, String> env, Path gpufile, List<Integer> task) {
    if (task.size() > held.size()) { // before the check below, which takes the square of it
      throw new IllegalArgumentException(
          "the task asks "
              + task.size()
              + " GPUs, more than the job's "
              + held.size()
              + " on this node");
    }
    for (int i = 0; i < task.size(); i++) {
      int g = task.get(i);
      if (g < 0 || g >= held.size() || task.subList(0, i).contains(g)) {
        throw new IllegalArgumentException(
            "the task's GPU "
                + g
                + (g < 0 || g >= held.size()
                    ? " is not one of the job's " + held.size() + " on this node"
                    : " is named twice"));
      }
    }
    if (anyNode) {
      env.put("PBS_GPUFILE", gpufile.toString());
    }
    if (held.isEmpty()) {
      if (anyNode) {
        env.remove("CUDA_VISIBLE_DEVICES");
      }
      return;
    }
    StringBuilder visible = new StringBuilder();
    List<Integer> seen = task.isEmpty() ? IntStream.range(0, held.size()).boxed().toList() : task;
    for (int i = 0; i < seen.size(); i++) {
      visible.append(i == 0 ? "" : ",").append(seen.get(i));
    }
    env.put("CUDA_VISIBLE_DEVICES", visible.toString());
    env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  }

  /** PBS_GPUFILE's lines: {@code node-gpuN} for each GPU of the job, nodes in exec_host order. */
  public static List<String> fileLines(Job job) {
    List<String> lines = new ArrayList<>();
    for (NodeAllocation a : job.getExecNodesList()) {
      for (int id : a.getGpuIdsList()) {
        lines.add(a.getNode() + "-gpu" + id);
      }
    }
    return lines;
  }

  /** Whether the job holds a GPU on any node (and so has a PBS_GPUFILE). */
  public static boolean any(Job job) {
    return job.getExecNodesList().stream().anyMatch(a -> a.getGpuIdsCount() > 0);
  }
}
