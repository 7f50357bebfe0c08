package dev.berth.scheduler;

import dev.berth.core.Sizes;
import dev.berth.proto.Job;
import dev.berth.proto.NodeGroup;
import java.util.List;
import java.util.Optional;

/**
 * Whether a job could ever run on the cluster: placement on every node as if it were empty (down
 * and offline nodes count, they may come back). When it cannot, says why in terms of the request,
 * so qsub can refuse it with a message the user can act on.
 */
public final class Feasibility {
  private Feasibility() {}

  public static Optional<String> whyImpossible(Job job, List<NodeCapacity> nodes) {
    return whyImpossible(job, nodes, "the cluster");
  }

  /**
   * The same over some nodes only, called {@code where} in the reason (e.g. "reservation R1.s").
   */
  public static Optional<String> whyImpossible(Job job, List<NodeCapacity> nodes, String where) {
    if (nodes.isEmpty()) {
      return Optional.of("the cluster has no nodes (start a mom, or create nodes with qmgr)");
    }
    List<NodeCapacity> empty = nodes.stream().map(NodeCapacity::empty).toList();
    if (Placement.place(job, empty).isPresent()) {
      return Optional.empty();
    }
    // explained over the nodes whose moms can run the job at all
    List<NodeCapacity> able = empty.stream().filter(n -> n.hosting().admits(job)).toList();
    if (able.size() < empty.size()) {
      empty = able;
      where = where + " (its nodes that " + Hosting.needs(job) + ")";
    }
    List<NodeGroup> groups = Placement.groups(job.getResources());
    int wanted = groups.stream().mapToInt(NodeGroup::getCount).sum();
    if (wanted > empty.size()) {
      return Optional.of(
          "requests " + wanted + " nodes but " + where + " has " + plural(empty.size(), "node"));
    }
    for (NodeGroup group : groups) {
      Optional<String> why = explainGroup(job, group, empty, where);
      if (why.isPresent()) {
        return why;
      }
    }
    return Optional.of("no combination of the nodes of " + where + " satisfies the request");
  }

  private static Optional<String> explainGroup(
      Job job, NodeGroup group, List<NodeCapacity> all, String where) {
    List<NodeCapacity> matching = matching(group, all);
    String which = describe(group, where);
    if (matching.isEmpty()) {
      return Optional.of("no node " + which);
    }
    if (matching.size() < group.getCount()) {
      return Optional.of(
          "requests "
              + group.getCount()
              + " nodes "
              + which
              + " but "
              + where
              + " has "
              + matching.size());
    }
    int maxNp = matching.stream().mapToInt(NodeCapacity::np).max().orElse(0);
    if (group.getPpn() > maxNp) {
      return Optional.of(
          "requests ppn=" + group.getPpn() + " but the largest node " + which + " has np=" + maxNp);
    }
    int maxGpus = matching.stream().mapToInt(NodeCapacity::gpus).max().orElse(0);
    if (group.getGpus() > maxGpus) {
      return Optional.of(
          "requests gpus="
              + group.getGpus()
              + " per node but nodes "
              + which
              + " have at most "
              + maxGpus);
    }
    long mem = Placement.memoryOnNode(job.getResources(), group.getPpn());
    long maxMem = matching.stream().mapToLong(NodeCapacity::physmem).max().orElse(0);
    if (maxMem > 0 && mem > maxMem) {
      return Optional.of(
          "needs "
              + Sizes.format(mem)
              + " of memory per node but the largest node "
              + which
              + " has "
              + Sizes.format(maxMem));
    }
    return Optional.empty();
  }

  private static List<NodeCapacity> matching(NodeGroup group, List<NodeCapacity> all) {
    boolean named = all.stream().anyMatch(n -> n.name().equals(group.getHost()));
    return all.stream()
        .filter(n -> named ? Placement.isNamedHost(n, group) : Placement.hasProperties(n, group))
        .toList();
  }

  private static String describe(NodeGroup group, String where) {
    if (!group.getHost().isEmpty()) {
      return "named or with property '"
          + group.getHost()
          + "'"
          + (group.getPropertiesCount() > 0 ? " and properties " + group.getPropertiesList() : "");
    }
    if (group.getPropertiesCount() > 0) {
      return "with properties " + group.getPropertiesList();
    }
    return "in " + where;
  }

  private static String plural(int n, String word) {
    return n + " " + word + (n == 1 ? "" : "s");
  }
}
