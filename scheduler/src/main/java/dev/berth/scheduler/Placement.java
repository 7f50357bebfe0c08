package dev.berth.scheduler;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * First-fit placement of one job's node request onto nodes: each node group takes, in node order,
 * the first usable nodes that have enough free CPUs, memory, GPUs and all the group's properties,
 * and whose mom can run the job ({@link Hosting}), and the lowest free CPU ids on each. A job never
 * gets the same node twice.
 */
public final class Placement {
  private Placement() {}

  /**
   * The groups a job asks for: {@code nodes=}, else {@code ncpus=} on one node, else 1:ppn=1; with
   * {@code gpus=} GPUs on each node of the groups that ask for none themselves.
   */
  public static List<NodeGroup> groups(ResourceRequest r) {
    List<NodeGroup> groups;
    if (r.getNodeGroupsCount() > 0) {
      groups = r.getNodeGroupsList();
    } else {
      int ppn = Math.max(1, Math.max(r.getNcpus(), r.getProcs()));
      groups = List.of(NodeGroup.newBuilder().setCount(1).setPpn(ppn).build());
    }
    if (r.getGpus() == 0) {
      return groups;
    }
    return groups.stream()
        .map(g -> g.getGpus() > 0 ? g : g.toBuilder().setGpus(r.getGpus()).build())
        .toList();
  }

  /** The CPUs a request asks for in all. */
  public static long cpus(ResourceRequest r) {
    long n = 0;
    for (NodeGroup g : groups(r)) {
      n += (long) g.getCount() * g.getPpn();
    }
    return n;
  }

  /**
   * Bytes the job needs on a node that runs {@code ppn} of its processes: ppn × pmem, else the
   * job's mem shared across its processes, else nothing.
   */
  public static long memoryOnNode(ResourceRequest r, int ppn) {
    if (r.getPmem() > 0) {
      return Math.multiplyExact(r.getPmem(), ppn);
    }
    if (r.getMem() > 0) {
      int total = groups(r).stream().mapToInt(g -> g.getCount() * g.getPpn()).sum();
      return (r.getMem() * ppn + total - 1) / total;
    }
    return 0;
  }

  /**
   * Allocations for {@code job} on {@code nodes} (as they are now), or empty if it does not fit.
   * The most demanding groups choose first (a named host, then more CPUs, GPUs, memory), so a small
   * group cannot take the only node a big one fits on; the result is in request order, since its
   * first node is the job's mother superior.
   */
  public static Optional<List<NodeAllocation>> place(Job job, List<NodeCapacity> nodes) {
    ResourceRequest r = job.getResources();
    boolean exclusive = job.getNodeExclusive();
    List<NodeGroup> groups = groups(r);
    List<Integer> order = new ArrayList<>();
    for (int g = 0; g < groups.size(); g++) {
      order.add(g);
    }
    order.sort(Comparator.comparing((Integer g) -> demand(groups.get(g), r)).reversed());
    Set<String> taken = new HashSet<>();
    List<List<NodeAllocation>> byGroup = new ArrayList<>(Collections.nCopies(groups.size(), null));
    for (int g : order) {
      NodeGroup group = groups.get(g);
      long mem = memoryOnNode(r, group.getPpn());
      List<NodeCapacity> fitting = firstFit(group, mem, exclusive, job, nodes, taken);
      if (fitting.size() < group.getCount()) {
        return Optional.empty();
      }
      List<NodeAllocation> chosen = new ArrayList<>();
      for (NodeCapacity n : fitting) {
        taken.add(n.name());
        List<Integer> free = n.freeCpus().stream().sorted().toList();
        List<Integer> cpus = exclusive ? free : free.subList(0, group.getPpn());
        chosen.add(
            NodeAllocation.newBuilder()
                .setNode(n.name())
                .addAllCpus(cpus)
                .setMem(mem)
                .setGpus(group.getGpus())
                .build());
      }
      byGroup.set(g, chosen);
    }
    List<NodeAllocation> result = new ArrayList<>();
    byGroup.forEach(result::addAll);
    return Optional.of(List.copyOf(result));
  }

  /** How hard a group is to place: named hosts first, then by CPUs, GPUs and memory. */
  private record Demand(boolean named, int ppn, int gpus, long mem) implements Comparable<Demand> {
    @Override
    public int compareTo(Demand o) {
      return Comparator.comparing(Demand::named)
          .thenComparingInt(Demand::ppn)
          .thenComparingInt(Demand::gpus)
          .thenComparingLong(Demand::mem)
          .compare(this, o);
    }
  }

  private static Demand demand(NodeGroup g, ResourceRequest r) {
    return new Demand(!g.getHost().isEmpty(), g.getPpn(), g.getGpus(), memoryOnNode(r, g.getPpn()));
  }

  /**
   * The first nodes, in order and up to the group's count, that the group fits on and no other
   * group of the job has taken: one pass over the nodes.
   */
  private static List<NodeCapacity> firstFit(
      NodeGroup group,
      long mem,
      boolean exclusive,
      Job job,
      List<NodeCapacity> nodes,
      Set<String> taken) {
    boolean namedHost =
        !group.getHost().isEmpty()
            && nodes.stream().anyMatch(n -> n.name().equals(group.getHost()));
    List<NodeCapacity> found = new ArrayList<>(group.getCount());
    for (NodeCapacity n : nodes) {
      if (found.size() == group.getCount()) {
        break;
      }
      // the cheapest test first: on a busy cluster most nodes lack the CPUs
      if (n.freeCpus().size() < group.getPpn()
          || !n.usable()
          || (exclusive && !n.idle())
          || taken.contains(n.name())
          || !n.hosting().admits(job)) {
        continue;
      }
      if (namedHost ? !isNamedHost(n, group) : !hasProperties(n, group)) {
        continue;
      }
      if (fits(n, group, mem)) {
        found.add(n);
      }
    }
    return found;
  }

  /** The node the group names, if it also has the group's other properties. */
  static boolean isNamedHost(NodeCapacity n, NodeGroup group) {
    return n.name().equals(group.getHost())
        && n.properties().containsAll(group.getPropertiesList());
  }

  static boolean hasProperties(NodeCapacity n, NodeGroup group) {
    if (!group.getHost().isEmpty() && !n.properties().contains(group.getHost())) {
      return false;
    }
    return n.properties().containsAll(group.getPropertiesList());
  }

  static boolean fits(NodeCapacity n, NodeGroup group, long mem) {
    boolean memoryOk = n.physmem() == 0 || mem <= n.memFree();
    return n.freeCpus().size() >= group.getPpn() && memoryOk && n.gpusFree() >= group.getGpus();
  }
}
