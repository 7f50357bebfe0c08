package dev.berth.server.command.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Node;
import dev.berth.server.command.CommandException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every node attribute of core's table is handled, and what it says of each is what happens. */
class NodeAttributesTest {
  private static final Map<String, String> VALUES =
      Map.of(
          "np",
          "4",
          "properties",
          "fast",
          "gpus",
          "0",
          "state",
          "offline",
          "note",
          "disk",
          "ntype",
          "cluster");

  private static Attribute set(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).setOp(Attribute.Op.SET).build();
  }

  @Test
  void everySettableAttributeIsSetAndEveryReadOnlyOneRefused() {
    Node node = NodeAttributes.created("n1");
    for (AttributeDef d : AttributeTable.NODE.definitions()) {
      if (d.readOnly()) {
        CommandException e =
            assertThrows(
                CommandException.class, () -> NodeAttributes.apply(node, set(d.name(), "x")));
        assertEquals(Error.Code.READ_ONLY_ATTRIBUTE, e.code(), d.name());
      } else {
        NodeAttributes.apply(node, set(d.name(), VALUES.get(d.name())));
      }
    }
    Node changed = node;
    for (var e : VALUES.entrySet()) {
      changed = NodeAttributes.apply(changed, set(e.getKey(), e.getValue()));
    }
    assertEquals(4, changed.getNp());
    assertEquals("disk", changed.getNote());
    assertEquals(true, changed.getOffline());
  }

  @Test
  void anAttributeNotInTheTableIsUnknown() {
    CommandException e =
        assertThrows(
            CommandException.class,
            () -> NodeAttributes.apply(NodeAttributes.created("n1"), set("power_state", "x")));
    assertEquals(Error.Code.UNKNOWN_ATTRIBUTE, e.code());
  }

  @Test
  void anUnknownNameIsToldTheSettableOnesInTheTablesOrder() {
    CommandException e =
        assertThrows(
            CommandException.class,
            () -> NodeAttributes.apply(NodeAttributes.created("n1"), set("color", "red")));
    assertEquals(
        "unknown node attribute 'color' (np, properties, gpus, state, note)", e.getMessage());
  }
}
