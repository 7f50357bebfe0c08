package dev.berth.mom.job;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.Variable;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The environment a job script starts with, as Torque's mom builds it: the job's Variable_List
 * (PBS_O_* from qsub, -v, -V), the owner's HOME, USER, LOGNAME and SHELL, then the PBS_* variables
 * describing the job, which always win.
 */
public final class JobEnvironment {
  private static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

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
    env.put("PBS_ENVIRONMENT", "PBS_BATCH");
    env.put("PBS_NODEFILE", nodefile.toString());
    env.put("PBS_NUM_NODES", Long.toString(nodeCount(job)));
    env.put("PBS_NUM_PPN", Integer.toString(ppn(job)));
    env.put("PBS_NP", Integer.toString(slots(job)));
    env.put("PBS_NODENUM", "0");
    env.put("PBS_TASKNUM", "1");
    env.put("PBS_VNODENUM", "0");
    env.put("PBS_VERSION", version);
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
