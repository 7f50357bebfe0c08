package dev.berth.tools.slurm;

import dev.berth.proto.NodeStatus;
import java.util.Arrays;
import java.util.List;

/**
 * A Berth node as Slurm's commands show a node: its name, its state in Slurm's words, short ({@code
 * sinfo}) and long ({@code sinfo -l}) — down, drained (offline and empty) or draining (offline with
 * jobs), allocated (every CPU taken), mixed (some), idle — its CPUs and how many of them jobs use,
 * and how full it is ({@code load}: IDLE, MIXED or ALLOCATED), which scontrol's state is made of.
 */
public record SlurmNode(
    NodeStatus status,
    String name,
    String state,
    String longState,
    int cpus,
    int used,
    String load) {

  public static SlurmNode of(NodeStatus ns) {
    String name = ns.getNode().getName();
    int cpus = ns.getNode().getCpuIdsCount();
    int used = (int) ns.getJobsList().stream().map(j -> j.getCpu()).distinct().count();
    List<String> torque = Arrays.asList(ns.getState().split(","));
    String load = used == 0 ? "IDLE" : used >= cpus ? "ALLOCATED" : "MIXED";
    String state;
    String longState;
    if (torque.contains("down")) {
      state = "down";
      longState = "down";
    } else if (torque.contains("offline")) {
      state = used > 0 ? "drng" : "drain";
      longState = used > 0 ? "draining" : "drained";
    } else if (used == 0) {
      state = "idle";
      longState = "idle";
    } else if (used >= cpus) {
      state = "alloc";
      longState = "allocated";
    } else {
      state = "mix";
      longState = "mixed";
    }
    return new SlurmNode(ns, name, state, longState, cpus, used, load);
  }

  /**
   * scontrol's state: its load, with {@code +DRAIN} when offline, or {@code DOWN+NOT_RESPONDING}
   * when its mom does not report.
   */
  public String scontrolState() {
    if (state.equals("down")) {
      return "DOWN+NOT_RESPONDING";
    }
    return state.startsWith("dr") ? load + "+DRAIN" : load;
  }
}
