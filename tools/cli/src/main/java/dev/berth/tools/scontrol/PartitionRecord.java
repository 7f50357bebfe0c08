package dev.berth.tools.scontrol;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.slurm.HostList;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Queue;
import dev.berth.tools.slurm.SlurmCluster;
import dev.berth.tools.slurm.SlurmMemory;
import dev.berth.tools.slurm.SlurmPartition;
import dev.berth.tools.slurm.SlurmTimes;
import java.util.List;
import java.util.Locale;

/**
 * {@code scontrol show partition}: a queue as Slurm 22.05's slurm_sprint_partition_info prints a
 * partition: Default for the server's default queue, DefaultTime, MaxTime, MinNodes and MaxNodes
 * from its resources_default and resources_max/min, its nodes (a reservation's queue has only the
 * reservation's), PriorityJobFactor its Priority, PriorityTier 2 for a preemptor queue, PreemptMode
 * its preempt_mode, State from enabled and started, and its CPUs, nodes and memory.
 */
final class PartitionRecord {
  private PartitionRecord() {}

  static String of(Queue queue, SlurmCluster cluster, boolean oneLiner) {
    String name = queue.getName();
    List<NodeStatus> nodes = cluster.nodesOf(name);
    int cpus = nodes.stream().mapToInt(ns -> ns.getNode().getCpuIdsCount()).sum();
    long memMb = nodes.stream().mapToLong(ns -> ns.getNode().getPhysmem() >> 20).sum();
    KeyValueRecord r = new KeyValueRecord();
    r.group("PartitionName", name);
    r.group("AllowGroups", "ALL", "AllowAccounts", "ALL", "AllowQos", "ALL");
    r.group(
        "AllocNodes",
        "ALL",
        "Default",
        name.equals(cluster.defaultQueue()) ? "YES" : "NO",
        "QoS",
        "N/A");
    long defaultTime =
        SlurmPartition.seconds(queue, QueueAttributeNames.RESOURCES_DEFAULT + ".walltime");
    r.group(
        "DefaultTime",
        defaultTime == 0 ? "NONE" : SlurmTimes.clock(defaultTime),
        "DisableRootJobs",
        "NO",
        "ExclusiveUser",
        "NO",
        "GraceTime",
        "0",
        "Hidden",
        "NO");
    long maxTime = SlurmPartition.maxSeconds(queue);
    String maxNodes = attribute(queue, QueueAttributeNames.RESOURCES_MAX + ".nodect");
    String minNodes = attribute(queue, QueueAttributeNames.RESOURCES_MIN + ".nodect");
    r.group(
        "MaxNodes",
        maxNodes.isEmpty() ? "UNLIMITED" : maxNodes,
        "MaxTime",
        maxTime == 0 ? "UNLIMITED" : SlurmTimes.clock(maxTime),
        "MinNodes",
        minNodes.isEmpty() ? "0" : minNodes,
        "LLN",
        "NO",
        "MaxCPUsPerNode",
        "UNLIMITED");
    r.group("Nodes", HostList.compress(nodes.stream().map(ns -> ns.getNode().getName()).toList()));
    String factor = attribute(queue, QueueAttributeNames.PRIORITY);
    boolean preemptor = "True".equalsIgnoreCase(attribute(queue, QueueAttributeNames.PREEMPTOR));
    r.group(
        "PriorityJobFactor",
        factor.isEmpty() ? "0" : factor,
        "PriorityTier",
        preemptor ? "2" : "1",
        "RootOnly",
        "NO",
        "ReqResv",
        "NO",
        "OverSubscribe",
        "NO");
    String mode = attribute(queue, QueueAttributeNames.PREEMPT_MODE);
    r.group(
        "OverTimeLimit",
        "NONE",
        "PreemptMode",
        mode.isEmpty() ? "OFF" : mode.toUpperCase(Locale.ROOT));
    r.group(
        "State",
        state(SlurmPartition.avail(queue)),
        "TotalCPUs",
        Integer.toString(cpus),
        "TotalNodes",
        Integer.toString(nodes.size()),
        "SelectTypeParameters",
        "NONE");
    r.group("JobDefaults", "(null)");
    r.group("DefMemPerNode", "UNLIMITED", "MaxMemPerNode", "UNLIMITED");
    r.group(
        "TRES",
        "cpu="
            + cpus
            + (memMb > 0 ? ",mem=" + SlurmMemory.of(memMb) : "")
            + ",node="
            + nodes.size()
            + ",billing="
            + cpus);
    return r.render(oneLiner) + (oneLiner ? "\n" : "\n\n");
  }

  private static String attribute(Queue queue, String name) {
    return queue.getAttributesOrDefault(name, "");
  }

  /** sinfo's AVAIL in scontrol's words: UP, DOWN, DRAIN, INACTIVE. */
  private static String state(String avail) {
    return avail.equals("inact") ? "INACTIVE" : avail.toUpperCase(Locale.ROOT);
  }
}
