package dev.berth.tools.pbsdsh;

import dev.berth.proto.TmNode;
import dev.berth.proto.TmNodeList;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where pbsdsh starts its tasks: a pure function of its options and the job's nodes. A vnode is one
 * slot; node {@code k} holds vnodes {@code first_vnode .. first_vnode + slots - 1}.
 */
public final class Targets {
  private Targets() {}

  /** One task to start: on {@code node}, standing for slot {@code vnode}. */
  public record Target(String node, int vnode) {}

  /** The options ask for a node or vnode the job does not have. */
  public static final class NoSuchTarget extends Exception {
    private static final long serialVersionUID = 1L;

    NoSuchTarget(String message) {
      super(message);
    }
  }

  /**
   * The tasks to start, in order: one per vnode by default; {@code -c N}: N round-robin over the
   * vnodes; {@code -n i}: vnode i; {@code -h host}: that node's first vnode; {@code -u}: only each
   * node's first vnode (with or without {@code -c}).
   */
  public static List<Target> select(PbsdshOptions options, TmNodeList job) throws NoSuchTarget {
    List<TmNode> nodes = job.getNodesList();
    if (options.host() != null) {
      Optional<TmNode> node = JobNodes.find(nodes, options.host());
      if (node.isEmpty()) {
        throw new NoSuchTarget(
            options.host()
                + " is not a node of job "
                + job.getJobId()
                + " (its nodes: "
                + JobNodes.names(nodes)
                + ")");
      }
      return List.of(firstOf(node.get()));
    }
    List<Target> all = vnodes(nodes);
    if (options.vnode() >= 0) {
      return all.stream()
          .filter(target -> target.vnode() == options.vnode())
          .findFirst()
          .map(List::of)
          .orElseThrow(() -> new NoSuchTarget(outOfRange(options.vnode(), all)));
    }
    List<Target> pool = options.unique() ? nodes.stream().map(Targets::firstOf).toList() : all;
    if (options.copies() == 0) {
      return pool;
    }
    if (pool.isEmpty()) {
      throw new NoSuchTarget("job " + job.getJobId() + " has no nodes to run on");
    }
    List<Target> copies = new ArrayList<>(options.copies());
    for (int i = 0; i < options.copies(); i++) {
      copies.add(pool.get(i % pool.size()));
    }
    return copies;
  }

  /** Every vnode of the job, in order. */
  static List<Target> vnodes(List<TmNode> nodes) {
    List<Target> all = new ArrayList<>();
    for (TmNode node : nodes) {
      for (int slot = 0; slot < node.getSlots(); slot++) {
        all.add(new Target(node.getName(), node.getFirstVnode() + slot));
      }
    }
    return all;
  }

  private static Target firstOf(TmNode node) {
    return new Target(node.getName(), node.getFirstVnode());
  }

  private static String outOfRange(int vnode, List<Target> all) {
    if (all.isEmpty()) {
      return "vnode " + vnode + " is out of range: the job has no vnodes";
    }
    int first = all.get(0).vnode();
    int last = all.get(all.size() - 1).vnode();
    return "vnode " + vnode + " is out of range: the job's vnodes are " + first + "-" + last;
  }
}
