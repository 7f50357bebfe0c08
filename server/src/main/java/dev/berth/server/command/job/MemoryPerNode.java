package dev.berth.server.command.job;

import dev.berth.core.Sizes;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.scheduler.Placement;
import dev.berth.server.command.ResourceRules;

/**
 * The memory a job needs on each of its nodes is a product: pmem (or pvmem) times the processes on
 * the node, or mem shared out over the job's processes. Each value fits in 64 bits on its own; the
 * product may not, and an overflowed product would be a small or negative limit for the scheduler
 * and the node's cgroup. So the server computes every product exactly before it accepts a request,
 * and refuses one that does not fit, naming the resources.
 */
final class MemoryPerNode {
  private MemoryPerNode() {}

  static void check(ResourceRequest r) {
    int processes = 0; // fits: NodeSpec bounds count times ppn over all groups
    for (NodeGroup g : Placement.groups(r)) {
      processes += g.getCount() * g.getPpn();
    }
    for (NodeGroup g : Placement.groups(r)) {
      int ppn = g.getPpn();
      product(r, "pmem", r.getPmem(), ppn, 0);
      product(r, "pvmem", r.getPvmem(), ppn, 0);
      // Placement rounds mem times ppn up over all processes: (mem * ppn + processes - 1)
      product(r, "mem", r.getMem(), ppn, processes);
    }
  }

  private static void product(ResourceRequest r, String name, long bytes, int ppn, int plus) {
    try {
      Math.addExact(Math.multiplyExact(bytes, ppn), plus);
    } catch (ArithmeticException e) {
      throw ResourceRules.badValue(
          name,
          r.getValuesOrDefault(name, Sizes.format(bytes)),
          name
              + " times ppn="
              + ppn
              + " is more memory than a node can be given (the product must stay under 8192pb)");
    }
  }
}
