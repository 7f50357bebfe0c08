package dev.berth.tools.momctl;

import dev.berth.proto.NodeStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The node a momctl host name means, as the server names its nodes: the node of that name; for
 * {@code localhost}, this host's; else the one node whose short name is the host's short name
 * ({@code n1} finds {@code n1.cluster.org}, and the other way round).
 */
final class NodeNames {
  private NodeNames() {}

  static Optional<NodeStatus> find(
      String host, List<NodeStatus> nodes, Supplier<String> localHost) {
    Optional<NodeStatus> exact = named(host, nodes);
    if (exact.isPresent()) {
      return exact;
    }
    String name = host.equals("localhost") ? localHost.get() : host;
    Optional<NodeStatus> local = named(name, nodes);
    if (local.isPresent()) {
      return local;
    }
    List<NodeStatus> alike =
        nodes.stream().filter(n -> sameHost(n.getNode().getName(), name)).toList();
    return alike.size() == 1 ? Optional.of(alike.get(0)) : Optional.empty();
  }

  /** A short name and a full one of the same host; addresses are never shortened. */
  private static boolean sameHost(String a, String b) {
    boolean fullA = a.indexOf('.') >= 0;
    boolean fullB = b.indexOf('.') >= 0;
    return fullA != fullB && !address(a) && !address(b) && shortName(a).equals(shortName(b));
  }

  private static boolean address(String name) {
    return name.indexOf(':') >= 0 || name.chars().allMatch(c -> c == '.' || Character.isDigit(c));
  }

  private static Optional<NodeStatus> named(String name, List<NodeStatus> nodes) {
    return nodes.stream().filter(n -> n.getNode().getName().equals(name)).findFirst();
  }

  private static String shortName(String name) {
    int dot = name.indexOf('.');
    return dot < 0 ? name : name.substring(0, dot);
  }
}
