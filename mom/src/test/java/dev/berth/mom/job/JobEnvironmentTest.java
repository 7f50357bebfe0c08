package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Variable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobEnvironmentTest {
  private static final JobEnvironment.Owner OWNER =
      new JobEnvironment.Owner("alice", "/home/alice", "/bin/bash");

  private static Job.Builder job() {
    return Job.newBuilder()
        .setId("12.srv")
        .setNumber(12)
        .setName("myjob")
        .setQueue("batch")
        .setServer("srv")
        .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0));
  }

  private static Map<String, String> env(Job.Builder job) {
    return JobEnvironment.build(
        job.build(), OWNER, Path.of("/var/tmp/berth/12.srv"), Path.of("/nf"), "1.2.3");
  }

  private static Variable var(String name, String value) {
    return Variable.newBuilder().setName(name).setValue(value).build();
  }

  @Test
  void variableListComesFirstInSubmissionOrder() {
    Map<String, String> env =
        env(job().addVariables(var("PBS_O_HOME", "/home/a")).addVariables(var("ZED", "1")));
    List<String> names = List.copyOf(env.keySet());
    assertEquals(List.of("PBS_O_HOME", "ZED"), names.subList(0, 2));
    assertEquals("/home/a", env.get("PBS_O_HOME"));
    assertEquals("1", env.get("ZED"));
  }

  @Test
  void ownerVariablesComeFromTheAccount() {
    Map<String, String> env =
        env(
            job()
                .addVariables(var("HOME", "/elsewhere"))
                .addVariables(var("USER", "mallory"))
                .addVariables(var("LOGNAME", "mallory"))
                .addVariables(var("SHELL", "/bin/false")));
    assertEquals("/home/alice", env.get("HOME"));
    assertEquals("alice", env.get("USER"));
    assertEquals("alice", env.get("LOGNAME"));
    assertEquals("/bin/bash", env.get("SHELL"));
  }

  @Test
  void pbsVariablesWinOverUserVariables() {
    Map<String, String> env =
        env(
            job()
                .addVariables(var("PBS_JOBID", "fake"))
                .addVariables(var("PBS_NODEFILE", "/etc/passwd"))
                .addVariables(var("PBS_ENVIRONMENT", "PBS_INTERACTIVE"))
                .addVariables(var("TMPDIR", "/shared")));
    assertEquals("12.srv", env.get("PBS_JOBID"));
    assertEquals("/nf", env.get("PBS_NODEFILE"));
    assertEquals("PBS_BATCH", env.get("PBS_ENVIRONMENT"));
    assertEquals("/var/tmp/berth/12.srv", env.get("TMPDIR"));
    assertEquals("myjob", env.get("PBS_JOBNAME"));
    assertEquals("batch", env.get("PBS_QUEUE"));
    assertEquals("srv", env.get("PBS_SERVER"));
    assertEquals("Berth-1.2.3", env.get("PBS_VERSION"), "Torque's TORQUE-6.1.2, in Berth's name");
  }

  @Test
  void countsComeFromExecNodesAndTheRequest() {
    Job.Builder j =
        job()
            .clearExecNodes()
            .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0).addCpus(1))
            .addExecNodes(NodeAllocation.newBuilder().setNode("n2").addCpus(4).addCpus(5))
            .setResources(
                ResourceRequest.newBuilder()
                    .addNodeGroups(NodeGroup.newBuilder().setCount(2).setPpn(2)));
    Map<String, String> env = env(j);
    assertEquals("2", env.get("PBS_NUM_NODES"));
    assertEquals("2", env.get("PBS_NUM_PPN"));
    assertEquals("4", env.get("PBS_NP"));
  }

  @Test
  void ppnIsTheFirstNodesCpusWithoutANodesRequest() {
    Job.Builder j =
        job()
            .clearExecNodes()
            .addExecNodes(
                NodeAllocation.newBuilder().setNode("n1").addCpus(0).addCpus(1).addCpus(2));
    Map<String, String> env = env(j);
    assertEquals("1", env.get("PBS_NUM_NODES"));
    assertEquals("3", env.get("PBS_NUM_PPN"));
    assertEquals("3", env.get("PBS_NP"));
  }

  @Test
  void arrayIdOnlyForSubjobs() {
    assertFalse(env(job()).containsKey("PBS_ARRAYID"));
    Map<String, String> sub = env(job().setArrayParent("12[].srv").setArrayIndex(0));
    assertEquals("0", sub.get("PBS_ARRAYID"));
  }

  @Test
  void initDirOnlyWithDashD() {
    assertFalse(env(job()).containsKey("PBS_O_INITDIR"));
    assertEquals("/scratch/run", env(job().setInitWorkDir("/scratch/run")).get("PBS_O_INITDIR"));
  }

  @Test
  void walltimeOnlyWhenRequested() {
    assertFalse(env(job()).containsKey("PBS_WALLTIME"));
    assertEquals(
        "3600",
        env(job().setResources(ResourceRequest.newBuilder().setWalltime(3600)))
            .get("PBS_WALLTIME"));
  }

  @Test
  void pathDefaultsOnlyWhenAbsent() {
    assertEquals("/usr/local/bin:/usr/bin:/bin", env(job()).get("PATH"));
    assertEquals("/opt/x/bin", env(job().addVariables(var("PATH", "/opt/x/bin"))).get("PATH"));
  }

  @Test
  void everyMpiFindsTheNodefileAsItsDefaultHostFileAndPbsTmrshAsItsLauncher() {
    Map<String, String> env = new java.util.HashMap<>(env(job()));
    JobEnvironment.addTaskManager(env, Path.of("/tm.sock"), Path.of("/opt/berth/bin"), false);
    for (String name : JobEnvironment.HOST_FILES) {
      assertEquals("/nf", env.get(name), name);
    }
    assertEquals("/opt/berth/bin/pbs_tmrsh", env.get("OMPI_MCA_plm_rsh_agent"));
    assertEquals("/opt/berth/bin/pbs_tmrsh", env.get("PRTE_MCA_plm_ssh_agent"));
    assertEquals("/opt/berth/bin/pbs_tmrsh", env.get("HYDRA_LAUNCHER_EXEC"));
    assertEquals("/opt/berth/bin/pbs_tmrsh", env.get("I_MPI_HYDRA_BOOTSTRAP_EXEC"));
    assertEquals("/opt/berth/bin", env.get("BERTH_TOOLS"), "where srun is, whatever PATH says");
  }

  @Test
  void withoutTheToolsNoMpiIsToldOfTheOtherNodes() {
    Map<String, String> env = new java.util.HashMap<>(env(job()));
    JobEnvironment.addTaskManager(env, Path.of("/tm.sock"), null, false);
    for (String name : JobEnvironment.HOST_FILES) {
      assertFalse(env.containsKey(name), name + " would send the MPI to the other nodes by ssh");
    }
  }

  @Test
  void aHostFileTheJobBroughtStays() {
    Map<String, String> env =
        new java.util.HashMap<>(env(job().addVariables(var("HYDRA_HOST_FILE", "/mine"))));
    JobEnvironment.addTaskManager(env, Path.of("/tm.sock"), Path.of("/opt/berth/bin"), false);
    assertEquals("/mine", env.get("HYDRA_HOST_FILE"));
    assertEquals("/nf", env.get("OMPI_MCA_orte_default_hostfile"));
  }

  @Test
  void aTaskOnAnotherNodeFindsThatNodesNodefileUnlessItsCallerNamedAnother() {
    Map<String, String> env =
        new java.util.HashMap<>(
            Map.of(
                "PBS_NODEFILE", "/ms/nf",
                "OMPI_MCA_orte_default_hostfile", "/ms/nf",
                "HYDRA_HOST_FILE", "/mine"));
    JobEnvironment.moveNodefile(env, Path.of("/sister/nf"));
    assertEquals("/sister/nf", env.get("PBS_NODEFILE"));
    assertEquals("/sister/nf", env.get("OMPI_MCA_orte_default_hostfile"));
    assertEquals("/mine", env.get("HYDRA_HOST_FILE"));
    assertFalse(env.containsKey("I_MPI_HYDRA_HOST_FILE"));
  }
}
