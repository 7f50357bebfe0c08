package dev.berth.server.command.node;

import dev.berth.core.NodeAttributeNames;
import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Node;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The node attributes qmgr and pbsnodes may change: np, properties, gpus, note and the operator's
 * offline flag (Torque's {@code state = offline} and {@code state -= offline}).
 */
public final class NodeAttributes {
  private static final AttributeSpec NP =
      AttributeSpec.of(AttributeTable.NODE, NodeAttributeNames.NP);
  private static final AttributeSpec GPUS =
      AttributeSpec.of(AttributeTable.NODE, NodeAttributeNames.GPUS);
  private static final AttributeSpec PROPERTIES =
      AttributeSpec.of(AttributeTable.NODE, NodeAttributeNames.PROPERTIES);
  private static final AttributeSpec STATE =
      AttributeSpec.of(AttributeTable.NODE, NodeAttributeNames.STATE);
  private static final AttributeSpec NOTE =
      AttributeSpec.of(AttributeTable.NODE, NodeAttributeNames.NOTE);

  /**
   * What an unknown name is told to use: the attributes of core's table that someone may set, but
   * ntype, which takes only the value every node has (it is accepted so that {@code print node}
   * replays).
   */
  private static final String SETTABLE =
      AttributeTable.NODE.definitions().stream()
          .filter(d -> !d.readOnly() && !d.name().equals(NodeAttributeNames.NTYPE))
          .map(AttributeDef::name)
          .collect(Collectors.joining(", "));

  private NodeAttributes() {}

  /** A node record for {@code qmgr create node}, before its mom reports. */
  public static Node created(String name) {
    return Node.newBuilder()
        .setName(name)
        .setNp(1)
        .addCpuIds(0)
        .setNtype("cluster")
        .setDown(true)
        .build();
  }

  public static Node apply(Node node, Attribute a) {
    AttributeDef def =
        AttributeTable.NODE
            .find(a.getName())
            .orElseThrow(
                () ->
                    new CommandException(
                        Error.Code.UNKNOWN_ATTRIBUTE,
                        "unknown node attribute '"
                            + AttributeValues.shown(a.getName())
                            + "' ("
                            + SETTABLE
                            + ")"));
    if (def.readOnly()) {
      throw new CommandException(
          Error.Code.READ_ONLY_ATTRIBUTE, "node attribute " + a.getName() + " is read-only");
    }
    Node.Builder n = node.toBuilder();
    switch (def.name()) {
      case NodeAttributeNames.NP -> {
        if (node.getRegistered()) {
          throw new CommandException(
              Error.Code.BAD_VALUE,
              "np of node " + node.getName() + " comes from its mom's CPU set (berth mom --cpus)");
        }
        int np = count(NodeAttributeNames.NP, NP.combine(a, Integer.toString(node.getNp())));
        if (np < 1) {
          throw new CommandException(Error.Code.BAD_VALUE, "np must be at least 1");
        }
        n.setNp(np).clearCpuIds().addAllCpuIds(IntStream.range(0, np).boxed().toList());
      }
      case NodeAttributeNames.GPUS -> {
        int gpus =
            count(NodeAttributeNames.GPUS, GPUS.combine(a, Integer.toString(node.getGpus())));
        if (node.getGpuDevicesCount() > 0 && gpus != node.getGpuDevicesCount()) {
          throw new CommandException(
              Error.Code.BAD_VALUE,
              "gpus of node "
                  + node.getName()
                  + " are the "
                  + node.getGpuDevicesCount()
                  + " GPUs its mom found (berth mom --gpus)");
        }
        n.setGpus(gpus);
      }
      case NodeAttributeNames.PROPERTIES -> {
        String joined = PROPERTIES.combine(a, String.join(",", node.getPropertiesList()));
        n.clearProperties()
            .addAllProperties(joined == null ? List.of() : AttributeSpec.items(joined));
      }
      // an operator's state is the operator's: the health check no longer brings the node back
      case NodeAttributeNames.STATE -> n.setOffline(offline(node, a)).setOfflineForHealth(false);
      case NodeAttributeNames.NOTE -> {
        String note = NOTE.combine(a, node.getNote());
        n.setNote(note == null ? "" : note);
      }
      case NodeAttributeNames.NTYPE -> {
        // Every Berth node is a cluster node; accepting the one value lets `print node` replay.
        if (a.getOp() != Attribute.Op.SET || !a.getValue().trim().equals("cluster")) {
          throw new CommandException(Error.Code.BAD_VALUE, "ntype can only be cluster");
        }
      }
      default -> throw new IllegalStateException("node attribute " + def.name() + " unhandled");
    }
    return n.build();
  }

  private static boolean offline(Node node, Attribute a) {
    String current = node.getOffline() ? "offline" : null;
    String next = STATE.combine(a, current);
    List<String> words = next == null ? List.of() : AttributeSpec.items(next);
    for (String w : words) {
      if (!w.equals("offline") && !w.equals("free")) {
        throw new CommandException(
            Error.Code.BAD_VALUE,
            "node state '" + w + "' cannot be set; use offline, or free to clear it");
      }
    }
    return words.contains("offline");
  }

  /** A count as the node record holds it (unset is 0); more than an int can hold is refused. */
  private static int count(String name, String value) {
    long n = value == null ? 0 : Long.parseLong(value);
    if (n > Integer.MAX_VALUE) {
      throw new CommandException(
          Error.Code.BAD_VALUE, name + " " + n + " is more than " + Integer.MAX_VALUE);
    }
    return (int) n;
  }
}
