package dev.berth.mom.job;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.Variable;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment a job script starts with, as Torque's mom builds it: the job's Variable_List
 * (PBS_O_* from qsub, -v, -V), the owner's HOME, USER, LOGNAME and SHELL, then the PBS_* variables
 * describing the job, which always win.
 */
public final class JobEnvironment {
  private static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

  /** Names the job's task-manager socket, for pbsdsh and pbs_tmrsh. */
  public static final String TM_SOCKET = "BERTH_TM_SOCKET";

  /**
   * Where Berth's job-side tools are (srun, pbsdsh, pbs_tmrsh), by a name a login profile that sets
   * PATH afresh leaves alone: what runs a step in an allocation calls {@code $BERTH_TOOLS/srun}.
   */
  public static final String TOOLS = "BERTH_TOOLS";

  /**
   * Where each MPI looks for its default host file, so that {@code mpirun ./a.out} with no host or
   * rank options starts one rank per line of PBS_NODEFILE, as in a Torque job: Open MPI 4 (ORTE),
   * Open MPI 5 (PRRTE), MPICH's hydra and Intel MPI's hydra.
   */
  static final List<String> HOST_FILES =
      List.of(
          "OMPI_MCA_orte_default_hostfile",
          "PRTE_MCA_prte_default_hostfile",
          "HYDRA_HOST_FILE",
          "I_MPI_HYDRA_HOST_FILE");

  private JobEnvironment() {}

  /** Who the job runs as, for HOME and friends. */
  public record Owner(String name, String home, String shell) {}

  public static Map<String, String> build(
      Job job, Owner owner, Path tmpdir, Path nodefile, String version) {
    Map<String, String> env = new LinkedHashMap<>();
    for (Variable v : job.getVariablesList()) {
      env.put(v.getName(), v.getValue());
    }
    env.put("HOME", owner.home());
    env.put("USER", owner.name());
    env.put("LOGNAME", owner.name());
    env.put("SHELL", owner.shell());
    env.putIfAbsent("PATH", DEFAULT_PATH);
    env.put("PBS_JOBID", job.getId());
    env.put("PBS_JOBNAME", job.getName());
    env.put("PBS_QUEUE", job.getQueue());
    env.put("PBS_SERVER", job.getServer());
    env.put("PBS_ENVIRONMENT", job.hasInteractive() ? "PBS_INTERACTIVE" : "PBS_BATCH");
    env.put("PBS_NODEFILE", nodefile.toString());
    env.put("PBS_NUM_NODES", Long.toString(nodeCount(job)));
    env.put("PBS_NUM_PPN", Integer.toString(ppn(job)));
    env.put("PBS_NP", Integer.toString(slots(job)));
    env.put("PBS_NODENUM", "0");
    env.put("PBS_TASKNUM", "1");
    env.put("PBS_VNODENUM", "0");
    env.put("PBS_VERSION", "Berth-" + version);
    env.put("TMPDIR", tmpdir.toString());
    if (!job.getInitWorkDir().isEmpty()) {
      env.put("PBS_O_INITDIR", job.getInitWorkDir());
    }
    if (!job.getArrayParent().isEmpty()) {
      env.put("PBS_ARRAYID", Integer.toString(job.getArrayIndex()));
    }
    if (job.getResources().getWalltime() > 0) {
      env.put("PBS_WALLTIME", Long.toString(job.getResources().getWalltime()));
    }
    return env;
  }

  /**
   * What lets a job's processes start tasks through the task manager: its socket, Berth's job-side
   * tools at the end of PATH (the job's own commands win) and in BERTH_TOOLS, pbs_tmrsh as the
   * remote launcher of Open MPI, MPICH's hydra and Intel MPI, so that each MPI daemon on another
   * node is started by that node's mom inside the job's cgroup there, and PBS_NODEFILE as each
   * MPI's default host file. Settings the job brought (qsub -v) stay. The host files are set only
   * with the launcher: an MPI that knew the other nodes but not pbs_tmrsh would reach them by ssh,
   * outside the job.
   *
   * @param nodesShareHost the job's nodes are moms on one machine with a host name each: MPICH's
   *     daemons then call back on the loopback interface, since those names resolve nowhere
   */
  public static void addTaskManager(
      Map<String, String> env, Path socket, Path tools, boolean nodesShareHost) {
    env.put(TM_SOCKET, socket.toString());
    if (tools == null) {
      return;
    }
    env.put(TOOLS, tools.toString());
    String path = env.getOrDefault("PATH", DEFAULT_PATH);
    if (!java.util.Arrays.asList(path.split(":")).contains(tools.toString())) {
      env.put("PATH", path + ":" + tools);
    }
    String agent = tools.resolve("pbs_tmrsh").toString();
    env.putIfAbsent("OMPI_MCA_plm_rsh_agent", agent);
    env.putIfAbsent("PRTE_MCA_plm_ssh_agent", agent);
    // A host's slots are its lines in the nodefile, not its cores: nodes=2:ppn=1 runs 2 ranks.
    env.putIfAbsent("OMPI_MCA_orte_set_default_slots", "1");
    env.putIfAbsent("PRTE_MCA_prte_set_default_slots", "1");
    String nodefile = env.get("PBS_NODEFILE");
    if (nodefile != null) {
      for (String name : HOST_FILES) {
        env.putIfAbsent(name, nodefile);
      }
    }
    env.putIfAbsent("HYDRA_LAUNCHER", "ssh");
    env.putIfAbsent("HYDRA_LAUNCHER_EXEC", agent);
    env.putIfAbsent("I_MPI_HYDRA_BOOTSTRAP", "ssh");
    env.putIfAbsent("I_MPI_HYDRA_BOOTSTRAP_EXEC", agent);
    if (nodesShareHost) {
      env.putIfAbsent("HYDRA_IFACE", "lo");
    }
  }

  /**
   * Points a task's environment, which its caller on another node sent, at this node's copy of
   * PBS_NODEFILE: the nodefile itself and the MPI host files that named the caller's copy.
   */
  public static void moveNodefile(Map<String, String> env, Path nodefile) {
    String theirs = env.put("PBS_NODEFILE", nodefile.toString());
    for (String name : HOST_FILES) {
      if (theirs != null && theirs.equals(env.get(name))) {
        env.put(name, nodefile.toString());
      }
    }
  }

  static long nodeCount(Job job) {
    return job.getExecNodesList().stream().map(NodeAllocation::getNode).distinct().count();
  }

  static int slots(Job job) {
    return job.getExecNodesList().stream().mapToInt(NodeAllocation::getCpusCount).sum();
  }

  /** ppn of the first node group as requested (Torque's PBS_NUM_PPN), else CPUs on the MS. */
  static int ppn(Job job) {
    var groups = job.getResources().getNodeGroupsList();
    if (!groups.isEmpty()) {
      return groups.stream().mapToInt(NodeGroup::getPpn).findFirst().orElse(1);
    }
    return job.getExecNodesCount() == 0 ? 1 : job.getExecNodes(0).getCpusCount();
  }
}
