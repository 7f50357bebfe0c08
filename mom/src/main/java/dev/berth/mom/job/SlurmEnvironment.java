package dev.berth.mom.job;

import dev.berth.core.slurm.HostList;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Job;
import java.util.List;
import java.util.Map;

/**
 * The variables Slurm gives a batch job, for a job sbatch submitted, beside Torque's PBS_* (which
 * it keeps): what the job is and where it runs, as Slurm 22.05 spells them
 * (notes/slurm-reference.md). What sbatch knew at submission (SLURM_SUBMIT_DIR, SLURM_NTASKS, ...)
 * came in its Variable_List, as Slurm's sbatch sends it. And what keeps each MPI from taking the
 * job for a Slurm allocation, which it would start its daemons in with srun: Open MPI and PRRTE
 * leave their Slurm components out, so that mpirun starts its daemons through pbs_tmrsh, as in a
 * Torque job.
 */
public final class SlurmEnvironment {
  private SlurmEnvironment() {}

  private static int perTask(String cpusPerTask) {
    try {
      return cpusPerTask == null ? 1 : Math.max(1, Integer.parseInt(cpusPerTask));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /**
   * Adds the job's SLURM_* variables to the batch script's {@code env}, which run on {@code node}
   * (its mother superior) as {@code uid} and {@code gid}.
   */
  public static void addTo(
      Map<String, String> env, Job job, String node, String user, int uid, int gid) {
    Map<String, Integer> cpus = SlurmJobs.cpusByNode(job.getExecNodesList());
    List<String> names = HostList.sorted(List.copyOf(cpus.keySet()));
    String id = Long.toString(SlurmJobs.number(job));
    env.put("SLURM_JOB_ID", id);
    env.put("SLURM_JOBID", id);
    if (!job.getArrayParent().isEmpty()) {
      // and SLURM_ARRAY_TASK_COUNT, _MIN, _MAX and _STEP, which the server added at submission
      env.put("SLURM_ARRAY_JOB_ID", Long.toString(job.getNumber()));
      env.put("SLURM_ARRAY_TASK_ID", Integer.toString(job.getArrayIndex()));
    }
    env.put("SLURM_JOB_NAME", job.getName());
    String nodes = HostList.compress(names);
    env.put("SLURM_JOB_NODELIST", nodes);
    env.put("SLURM_NODELIST", nodes);
    env.put("SLURM_JOB_NUM_NODES", Integer.toString(names.size()));
    env.put("SLURM_NNODES", Integer.toString(names.size()));
    env.put("SLURM_JOB_CPUS_PER_NODE", HostList.counts(names.stream().map(cpus::get).toList()));
    env.put("SLURM_CPUS_ON_NODE", Integer.toString(cpus.getOrDefault(node, 0)));
    // a task per -c CPUs on each node (sbatch sends SLURM_CPUS_PER_TASK when -c was given)
    int perTask = perTask(env.get("SLURM_CPUS_PER_TASK"));
    env.put(
        "SLURM_TASKS_PER_NODE",
        HostList.counts(names.stream().map(n -> Math.max(1, cpus.get(n) / perTask)).toList()));
    env.put("SLURM_TOPOLOGY_ADDR", node);
    env.put("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
    env.put("SLURM_NODE_ALIASES", "(null)");
    env.put("SLURM_JOB_PARTITION", job.getQueue());
    if (!job.getAccount().isEmpty()) {
      env.put("SLURM_JOB_ACCOUNT", job.getAccount());
    }
    env.put("SLURM_JOB_USER", user);
    env.put("SLURM_JOB_UID", Integer.toString(uid));
    env.put("SLURM_JOB_GID", Integer.toString(gid));
    env.put("SLURM_CLUSTER_NAME", job.getServer());
    // the batch script is the job's first task, on its first node
    env.put("SLURM_NODEID", "0");
    env.put("SLURM_PROCID", "0");
    env.put("SLURM_LOCALID", "0");
    env.put("SLURM_GTIDS", "0");
    if (!job.hasInteractive()) {
      env.put("ENVIRONMENT", "BATCH"); // salloc's and srun's shells are no batch script
    }
    for (String mpi :
        new String[] {"OMPI_MCA_plm", "OMPI_MCA_ras", "PRTE_MCA_plm", "PRTE_MCA_ras"}) {
      env.putIfAbsent(mpi, "^slurm");
    }
  }
}
