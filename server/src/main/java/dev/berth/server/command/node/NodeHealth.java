package dev.berth.server.command.node;

import dev.berth.core.NodeAttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.Node;
import dev.berth.proto.NodeStatusReport;
import dev.berth.proto.NodeUpdated;
import dev.berth.server.command.Outcome;
import dev.berth.server.state.ClusterState;
import java.util.Optional;

/** What a mom's node health check (Torque's node_check_script) does to its node. */
public final class NodeHealth {
  private NodeHealth() {}

  /**
   * Whether a status report changes what the node's health check put on it: an error on a node that
   * is not offline, another error on one it took offline, or none on one it took offline.
   */
  public static boolean changes(Node node, String error) {
    if (node.getOfflineForHealth()) {
      return !error.equals(node.getNote());
    }
    return !error.isEmpty() && !node.getOffline();
  }

  /**
   * The node health check's verdict (Torque's node_check_script): an ERROR takes the node offline
   * with the message as its note; a pass brings back a node the check took offline, and only such a
   * node (an operator's offline stays). Idempotent.
   */
  public static Outcome verdict(ClusterState s, NodeStatusReport r) {
    Outcome out = new Outcome();
    Optional<Node> found = s.node(r.getNode());
    if (found.isEmpty() || !changes(found.get(), r.getHealthError())) {
      return out;
    }
    Node node = found.get();
    String error = r.getHealthError();
    Node.Builder changed =
        error.isEmpty()
            ? node.toBuilder().setOffline(false).setNote("").setOfflineForHealth(false)
            : node.toBuilder().setOffline(true).setNote(error).setOfflineForHealth(true);
    return out.event(
        Event.newBuilder()
            .setNodeUpdated(
                NodeUpdated.newBuilder()
                    .setNode(changed)
                    .addChanged(NodeAttributeNames.STATE)
                    .addChanged(NodeAttributeNames.NOTE)));
  }
}
