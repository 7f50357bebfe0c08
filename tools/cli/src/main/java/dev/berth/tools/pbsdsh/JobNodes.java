package dev.berth.tools.pbsdsh;

import dev.berth.proto.TmNode;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Finding a job's node by the name a user or an MPI launcher types. */
public final class JobNodes {
  private JobNodes() {}

  /**
   * The node named {@code host}: an exact match first, else the first whose short name (up to the
   * first dot) equals {@code host}'s short name, so {@code n1} finds {@code n1.cluster.org} and
   * {@code n1.cluster.org} finds {@code n1}.
   */
  public static Optional<TmNode> find(List<TmNode> nodes, String host) {
    for (TmNode node : nodes) {
      if (node.getName().equals(host)) {
        return Optional.of(node);
      }
    }
    String wanted = shortName(host);
    return nodes.stream().filter(node -> shortName(node.getName()).equals(wanted)).findFirst();
  }

  /** The nodes' names, comma-separated, for error messages. */
  public static String names(List<TmNode> nodes) {
    return nodes.stream().map(TmNode::getName).collect(Collectors.joining(", "));
  }

  static String shortName(String name) {
    int dot = name.indexOf('.');
    return dot < 0 ? name : name.substring(0, dot);
  }
}
