package dev.berth.scheduler;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The first-in-first-out policy: jobs in eligibility order (priority, then submission), each placed
 * first-fit on what is free after the jobs before it. A job that does not fit now is passed over,
 * not waited for (Torque's fifo scheduler with strict_fifo off), and a cycle stops early once no
 * CPU is free.
 */
public final class Fifo {
  private Fifo() {}

  public static List<RunDecision> plan(ClusterView view, int maxDecisions) {
    return plan(view, maxDecisions, Integer.MAX_VALUE);
  }

  /**
   * A plan that looks at no more than the first {@code maxConsidered} eligible jobs: bounded work
   * for a caller that cannot wait for a whole cycle over a long queue, and leaves the rest to one.
   */
  public static List<RunDecision> plan(ClusterView view, int maxDecisions, int maxConsidered) {
    List<NodeCapacity> nodes = new ArrayList<>(view.nodes());
    List<RunDecision> decisions = new ArrayList<>();
    Map<String, Integer> running = new HashMap<>();
    Room room = Room.of(nodes);
    int considered = 0;
    for (Job job : view.eligibleJobs()) {
      if (decisions.size() >= maxDecisions || considered++ >= maxConsidered || room.free() == 0) {
        break;
      }
      if (!room.mayHold(job)) {
        continue;
      }
      Map<String, Integer> limits = view.limits(job);
      if (atALimit(view, limits, running)) {
        continue;
      }
      Optional<List<NodeAllocation>> placed = Placement.place(job, nodes);
      if (placed.isEmpty()) {
        continue;
      }
      decisions.add(new RunDecision(job.getId(), placed.get()));
      take(nodes, placed.get());
      room = Room.of(nodes);
      limits.keySet().forEach(key -> running.merge(key, 1, Integer::sum));
    }
    return List.copyOf(decisions);
  }

  /**
   * The free CPUs of the usable nodes: in all, and the most on one node. A job asking for more on
   * one node than any has free, or for more than are free in all, cannot be placed, which is known
   * without trying it on every node (on a full cluster with a long queue that is most of the jobs,
   * and trying each on each node is jobs times nodes).
   */
  private record Room(int free, int mostOnOneNode) {
    static Room of(List<NodeCapacity> nodes) {
      int free = 0;
      int most = 0;
      for (NodeCapacity n : nodes) {
        if (n.usable()) {
          free += n.freeCpus().size();
          most = Math.max(most, n.freeCpus().size());
        }
      }
      return new Room(free, most);
    }

    boolean mayHold(Job job) {
      long cpus = 0;
      for (NodeGroup g : Placement.groups(job.getResources())) {
        if (g.getCount() > 0 && g.getPpn() > mostOnOneNode) {
          return false;
        }
        cpus += (long) g.getPpn() * g.getCount();
      }
      return cpus <= free;
    }
  }

  /** Whether starting the job would pass one of its limits (counting this cycle's starts). */
  private static boolean atALimit(
      ClusterView view, Map<String, Integer> limits, Map<String, Integer> running) {
    for (Map.Entry<String, Integer> limit : limits.entrySet()) {
      int now = running.computeIfAbsent(limit.getKey(), view::running);
      if (now >= limit.getValue()) {
        return true;
      }
    }
    return false;
  }

  /** Removes what the allocations hold from the planning copy of the nodes. */
  static void take(List<NodeCapacity> nodes, List<NodeAllocation> allocations) {
    for (NodeAllocation a : allocations) {
      for (int i = 0; i < nodes.size(); i++) {
        NodeCapacity n = nodes.get(i);
        if (n.name().equals(a.getNode())) {
          nodes.set(i, minus(n, a));
        }
      }
    }
  }

  private static NodeCapacity minus(NodeCapacity n, NodeAllocation a) {
    Set<Integer> used = new HashSet<>(a.getCpusList());
    List<Integer> free = n.freeCpus().stream().filter(c -> !used.contains(c)).toList();
    return new NodeCapacity(
        n.name(),
        n.properties(),
        n.cpuIds(),
        free,
        n.physmem(),
        n.memFree() - a.getMem(),
        n.gpus(),
        n.gpusFree() - a.getGpus(),
        n.usable(),
        false);
  }
}
