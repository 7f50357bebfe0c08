package dev.berth.server.command.node;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Node;
import dev.berth.server.command.Housekeeping;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a node's mom is alive, decided in one place: a registered node is down once its mom has
 * not been heard from for longer than node_check_rate, and up again when its mom, connected to this
 * server, reports while the node is down. What a node going down does to its jobs is {@link
 * Housekeeping#nodeDown}'s; a health check's verdict ({@link NodeHealth}) sets the node's offline
 * flag and is not liveness. Time is the caller's clock, in milliseconds.
 */
public final class NodeLiveness {
  private final Map<String, Long> lastHeard = new HashMap<>();

  /**
   * Every node known at the start counts as heard from then: a server that starts (or takes over)
   * gives each mom a whole node_check_rate to report before it is marked down.
   */
  public NodeLiveness(ClusterState state, long now) {
    state.nodes().keySet().forEach(node -> lastHeard.put(node, now));
  }

  /** The node's mom sent something. */
  public void heard(String node, long now) {
    lastHeard.put(node, now);
  }

  /** A node to mark down, and how long its mom has been silent. */
  public record Silent(String node, long silentMillis) {}

  /**
   * The registered nodes, not down yet, whose moms have been silent longer than node_check_rate.
   */
  public List<Silent> overdue(ClusterState state, long now) {
    long limit = ServerAttributes.number(state, ServerAttributeNames.NODE_CHECK_RATE) * 1000;
    List<Silent> overdue = new ArrayList<>();
    for (Node n : state.nodes().values()) {
      Long heard = lastHeard.get(n.getName());
      if (n.getRegistered() && !n.getDown() && heard != null && now - heard > limit) {
        overdue.add(new Silent(n.getName(), now - heard));
      }
    }
    return overdue;
  }

  /**
   * Whether a status report brings the node back up: it is down, and its mom is connected (it said
   * hello to this server), so the report is the mom's own and not a late letter.
   */
  public static boolean backUp(Optional<Node> known, boolean momConnected) {
    return known.isPresent() && known.get().getDown() && momConnected;
  }
}
