package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The variables of a job sbatch submitted, as Slurm 22.05 sets them for a batch script. */
class SlurmEnvironmentTest {
  private static NodeAllocation node(String name, Integer... cpus) {
    return NodeAllocation.newBuilder().setNode(name).addAllCpus(java.util.List.of(cpus)).build();
  }

  @Test
  void aThreeNodeJob() {
    Job job =
        Job.newBuilder()
            .setId("42.head")
            .setNumber(42)
            .setName("train")
            .setQueue("batch")
            .setServer("head")
            .setSubmitStyle("sbatch")
            .addExecNodes(node("n10", 0, 1))
            .addExecNodes(node("n9", 0, 1))
            .addExecNodes(node("n2", 3))
            .build();
    Map<String, String> env = new HashMap<>(Map.of("OMPI_MCA_plm", "rsh"));
    Map<String, String> twoEach = new HashMap<>(Map.of("SLURM_CPUS_PER_TASK", "2"));
    SlurmEnvironment.addTo(twoEach, job, "n10", "alice", 1001, 1002);
    assertEquals("1(x3)", twoEach.get("SLURM_TASKS_PER_NODE"), "a task a node of 2, and n2's 1");
    assertTrue(SlurmJobs.sbatch(job));
    SlurmEnvironment.addTo(env, job, "n10", "alice", 1001, 1002);
    assertEquals("42", env.get("SLURM_JOB_ID"));
    assertEquals("42", env.get("SLURM_JOBID"));
    assertEquals("train", env.get("SLURM_JOB_NAME"));
    assertEquals("n[2,9-10]", env.get("SLURM_JOB_NODELIST"));
    assertEquals("3", env.get("SLURM_NNODES"));
    assertEquals("1,2(x2)", env.get("SLURM_JOB_CPUS_PER_NODE"), "in the node list's order");
    assertEquals("2", env.get("SLURM_CPUS_ON_NODE"));
    assertEquals("1,2(x2)", env.get("SLURM_TASKS_PER_NODE"), "a task a CPU without -c");
    assertEquals("n10", env.get("SLURM_TOPOLOGY_ADDR"));
    assertEquals("batch", env.get("SLURM_JOB_PARTITION"));
    assertFalse(env.containsKey("SLURM_JOB_ACCOUNT"));
    assertEquals("1001", env.get("SLURM_JOB_UID"));
    assertEquals("head", env.get("SLURM_CLUSTER_NAME"));
    assertEquals("0", env.get("SLURM_PROCID"));
    assertEquals("rsh", env.get("OMPI_MCA_plm"), "the job's own setting stays");
    assertEquals("^slurm", env.get("OMPI_MCA_ras"));
    assertFalse(env.containsKey("SLURM_ARRAY_JOB_ID"), "no array task");
  }

  @Test
  void anArrayTaskHasItsOwnJobIdAndItsArraysBeside() {
    Job task =
        Job.newBuilder()
            .setNumber(42)
            .setTaskNumber(44)
            .setArrayParent("42[].head")
            .setArrayIndex(7)
            .setSubmitStyle("sbatch")
            .addExecNodes(node("n1", 0))
            .build();
    Map<String, String> env = new HashMap<>();
    SlurmEnvironment.addTo(env, task, "n1", "alice", 1001, 1002);
    assertEquals("44", env.get("SLURM_JOB_ID"));
    assertEquals("42", env.get("SLURM_ARRAY_JOB_ID"));
    assertEquals("7", env.get("SLURM_ARRAY_TASK_ID"));
  }

  @Test
  void aQsubJobGetsNone() {
    assertFalse(SlurmJobs.sbatch(Job.newBuilder().build()));
  }
}
