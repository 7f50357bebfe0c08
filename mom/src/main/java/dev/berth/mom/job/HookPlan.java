package dev.berth.mom.job;

import dev.berth.core.UsedResources;
import dev.berth.proto.Job;
import dev.berth.proto.ResourcesUsed;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Which of the site's prologue and epilogue scripts run around a job on a node, in Torque's order,
 * and the arguments and environment Torque gives them. Root's scripts run first at the start and
 * last at the end; the {@code .user} ones run as the job's owner; sisters run the {@code .parallel}
 * variants.
 */
public final class HookPlan {
  private HookPlan() {}

  /** Before the job's script (mother superior) or when the sister joins. */
  public enum Phase {
    PROLOGUE,
    EPILOGUE
  }

  /**
   * One script to run: its file name in the hook directory, whether it runs as the job's owner
   * (else as root), its arguments and environment.
   */
  public record Call(String name, boolean asOwner, List<String> args, Map<String, String> env) {
    public Call {
      args = List.copyOf(args);
      env = Map.copyOf(env);
    }
  }

  /** What a finished job tells its epilogues: its session, exit status and what it used. */
  public record Ending(long sessionId, int exitStatus, ResourcesUsed used) {}

  /**
   * The prologues of {@code job} on {@code node}: the mother superior's, or a sister's ({@code
   * .parallel}) on any other of its nodes.
   */
  public static List<Call> prologues(Job job, String node, Path tmpdir, Path nodefile) {
    int nodeNumber = nodeNumber(job, node);
    String suffix = suffix(nodeNumber);
    List<String> args =
        List.of(
            job.getId(),
            job.getEuser(),
            job.getEgroup(),
            job.getName(),
            resourceList(job),
            job.getQueue(),
            job.getAccount());
    Map<String, String> env = environment(job, nodeNumber, tmpdir, nodefile);
    return List.of(
        new Call("prologue" + suffix, false, args, env),
        new Call("prologue.user" + suffix, true, args, env));
  }

  /** The epilogues of {@code job} on {@code node}, once everything of it has ended there. */
  public static List<Call> epilogues(Job job, String node, Path tmpdir, Path nodefile, Ending end) {
    int nodeNumber = nodeNumber(job, node);
    String suffix = suffix(nodeNumber);
    List<String> args =
        List.of(
            job.getId(),
            job.getEuser(),
            job.getEgroup(),
            job.getName(),
            Long.toString(end.sessionId()),
            resourceList(job),
            resourcesUsed(end.used()),
            job.getQueue(),
            job.getAccount(),
            Integer.toString(end.exitStatus()));
    Map<String, String> env = environment(job, nodeNumber, tmpdir, nodefile);
    return List.of(
        new Call("epilogue.user" + suffix, true, args, env),
        new Call("epilogue" + suffix, false, args, env));
  }

  /** {@code node}'s place among the job's nodes (PBS_NODENUM): the mother superior's is 0. */
  static int nodeNumber(Job job, String node) {
    for (int i = 0; i < job.getExecNodesCount(); i++) {
      if (job.getExecNodes(i).getNode().equals(node)) {
        return i;
      }
    }
    return 0;
  }

  /** Sisters run the {@code .parallel} scripts. */
  private static String suffix(int nodeNumber) {
    return nodeNumber == 0 ? "" : ".parallel";
  }

  /** Resource_List as Torque passes it: {@code name=value} pairs joined by commas. */
  static String resourceList(Job job) {
    return new TreeMap<>(job.getResources().getValuesMap())
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(","));
  }

  /** resources_used as Torque passes it to epilogues: {@code name=value} pairs, qstat's. */
  static String resourcesUsed(ResourcesUsed used) {
    return UsedResources.of(used).stream()
        .map(UsedResources.Item::pair)
        .collect(Collectors.joining(","));
  }

  /**
   * What Torque sets for pro- and epilogues (not the job's own environment), with PBS_JOBID as
   * well: Berth's scripts need not parse it from their arguments.
   */
  static Map<String, String> environment(Job job, int nodeNumber, Path tmpdir, Path nodefile) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env.put("PBS_JOBID", job.getId());
    String nodes = job.getResources().getValuesMap().get("nodes");
    if (nodes != null) {
      env.put("PBS_RESOURCE_NODES", nodes);
    }
    env.put("PBS_NUM_NODES", Long.toString(JobEnvironment.nodeCount(job)));
    env.put("PBS_NUM_PPN", Integer.toString(JobEnvironment.ppn(job)));
    env.put("PBS_NP", Integer.toString(JobEnvironment.slots(job)));
    env.put("PBS_NODENUM", Integer.toString(nodeNumber));
    if (job.getExecNodesCount() > 0) {
      env.put("PBS_MSHOST", job.getExecNodes(0).getNode());
    }
    if (nodefile != null) {
      env.put("PBS_NODEFILE", nodefile.toString());
    }
    env.put("TMPDIR", tmpdir.toString());
    job.getVariablesList().stream()
        .filter(v -> v.getName().equals("PBS_O_WORKDIR"))
        .findFirst()
        .ifPresent(v -> env.put("PBS_O_WORKDIR", v.getValue()));
    return env;
  }
}
