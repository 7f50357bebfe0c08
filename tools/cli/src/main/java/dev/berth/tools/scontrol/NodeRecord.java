package dev.berth.tools.scontrol;

import dev.berth.proto.Node;
import dev.berth.proto.NodeStatus;
import dev.berth.tools.slurm.SlurmCluster;
import dev.berth.tools.slurm.SlurmMemory;
import dev.berth.tools.slurm.SlurmNode;
import java.util.List;
import java.util.Locale;

/**
 * {@code scontrol show node}: a node as Slurm 22.05's slurm_sprint_node_table prints one: its CPUs
 * and how many jobs hold, its memory (RealMemory from the mom's report, AllocMem what running jobs
 * reserved there), its state with Slurm's flags ({@code MIXED}, {@code IDLE+DRAIN}, {@code
 * DOWN+NOT_RESPONDING}), the queues it serves and the operator's note as its Reason. What Berth
 * does not know (boot times, power, sensors) is printed as Slurm prints an unknown.
 */
final class NodeRecord {
  private NodeRecord() {}

  static String of(NodeStatus ns, SlurmCluster cluster, boolean oneLiner) {
    Node node = ns.getNode();
    SlurmNode s = SlurmNode.of(ns);
    KeyValueRecord r = new KeyValueRecord();
    r.group("NodeName", s.name(), "CoresPerSocket", Integer.toString(s.cpus())).then(" ");
    r.group(
        "CPUAlloc",
        Integer.toString(s.used()),
        "CPUEfctv",
        Integer.toString(s.cpus()),
        "CPUTot",
        Integer.toString(s.cpus()),
        "CPULoad",
        load(node));
    String features =
        node.getPropertiesCount() == 0 ? "(null)" : String.join(",", node.getPropertiesList());
    r.group("AvailableFeatures", features);
    r.group("ActiveFeatures", features);
    r.group("Gres", node.getGpus() > 0 ? "gpu:" + node.getGpus() : "(null)");
    long realMb = node.getPhysmem() >> 20;
    long allocMb = cluster.memoryInUse(s.name()) >> 20;
    r.group(
        "RealMemory",
        Long.toString(realMb),
        "AllocMem",
        Long.toString(allocMb),
        "FreeMem",
        freeMem(node),
        "Sockets",
        "1",
        "Boards",
        "1");
    r.group(
        "State",
        s.scontrolState(),
        "ThreadsPerCore",
        "1",
        "TmpDisk",
        "0",
        "Weight",
        "1",
        "Owner",
        "N/A",
        "MCS_label",
        "N/A");
    List<String> partitions = cluster.partitionsOf(s.name());
    if (!partitions.isEmpty()) {
      r.group("Partitions", String.join(",", partitions)).then(" ");
    }
    r.group("BootTime", "None", "SlurmdStartTime", "None");
    r.group("LastBusyTime", "Unknown");
    String gres = node.getGpus() > 0 ? ",gres/gpu=" + node.getGpus() : "";
    r.group(
        "CfgTRES",
        "cpu=" + s.cpus() + ",mem=" + SlurmMemory.of(realMb) + ",billing=" + s.cpus() + gres);
    int gpusUsed = ns.getGpuJobsCount();
    r.group(
        "AllocTRES",
        s.used() == 0
            ? ""
            : "cpu="
                + s.used()
                + (allocMb > 0 ? ",mem=" + SlurmMemory.of(allocMb) : "")
                + (gpusUsed > 0 ? ",gres/gpu=" + gpusUsed : ""));
    r.group("CapWatts", "n/a");
    r.group("CurrentWatts", "0", "AveWatts", "0");
    r.group("ExtSensorsJoules", "n/s", "ExtSensorsWatts", "0", "ExtSensorsTemp", "n/s");
    if (!node.getNote().isEmpty()) {
      r.group("Reason", node.getNote());
    }
    return r.render(oneLiner) + (oneLiner ? "\n" : "\n\n");
  }

  /** The load average the mom reported, as Slurm's CPULoad ({@code 0.52}); N/A before any. */
  private static String load(Node node) {
    String load = node.getStatusOrDefault("loadave", "");
    try {
      return String.format(Locale.ROOT, "%.2f", Double.parseDouble(load));
    } catch (NumberFormatException e) {
      return "N/A";
    }
  }

  /** availmem ({@code 123456kb}) in megabytes; N/A before any report. */
  private static String freeMem(Node node) {
    String avail = node.getStatusOrDefault("availmem", "");
    if (!avail.endsWith("kb")) {
      return "N/A";
    }
    try {
      return Long.toString(Long.parseLong(avail.substring(0, avail.length() - 2)) / 1024);
    } catch (NumberFormatException e) {
      return "N/A";
    }
  }
}
