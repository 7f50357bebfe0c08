package dev.berth.tools.pbsnodes;

import static dev.berth.tools.format.Columns.left;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.NodeStatus;
import dev.berth.tools.format.Attr;
import dev.berth.tools.format.AttrDocuments;
import dev.berth.tools.format.JsonWriter;
import dev.berth.tools.format.Xml;
import java.time.ZoneId;
import java.util.List;

/** pbsnodes output as Torque 6 prints it ({@code -a}, {@code -l}, {@code -x}), and JSON. */
public final class NodeFormats {
  private NodeFormats() {}

  /** {@code -a}: the name, {@code " attr = value"} lines, an empty line. */
  public static String block(NodeStatus status) {
    StringBuilder out =
        new StringBuilder(ControlCharacters.escape(status.getNode().getName())).append('\n');
    for (Attr attr : NodeAttributeList.of(status)) {
      out.append("     ")
          .append(ControlCharacters.escape(attr.name()))
          .append(" = ")
          .append(ControlCharacters.escape(attr.value()))
          .append('\n');
    }
    return out.append('\n').toString();
  }

  /**
   * {@code -l}: {@code %-20.20s %s}, or with {@code -n} and a note {@code %-20.20s %-26.26s %s}.
   */
  public static String listLine(NodeStatus status, boolean withNote) {
    String name = left(status.getNode().getName(), 20, 20);
    String note = status.getNode().getNote();
    if (withNote && !note.isEmpty()) {
      return name
          + " "
          + left(status.getState(), 26, 26)
          + " "
          + ControlCharacters.escape(note)
          + "\n";
    }
    return name + " " + ControlCharacters.escape(status.getState()) + "\n";
  }

  /**
   * {@code -x}: {@code <Data><Node><name>..</name><state>..</state>...</Node></Data>} on one line.
   */
  public static String xml(List<NodeStatus> nodes) {
    Xml xml = new Xml().open("Data");
    for (NodeStatus status : nodes) {
      xml.open("Node").element("name", status.getNode().getName());
      AttrDocuments.xml(xml, NodeAttributeList.of(status));
      xml.close("Node");
    }
    return xml.close("Data") + "\n";
  }

  /** {@code -F json}: OpenPBS's layout, nodes under {@code "nodes"}. */
  public static String json(
      List<NodeStatus> nodes, String server, String version, long now, ZoneId zone) {
    JsonWriter json =
        new JsonWriter()
            .beginObject()
            .field("timestamp", now)
            .field("pbs_version", version)
            .field("pbs_server", server)
            .beginObject("nodes");
    for (NodeStatus status : nodes) {
      json.beginObject(status.getNode().getName());
      AttrDocuments.json(json, NodeAttributeList.of(status), zone);
      json.endObject();
    }
    return json.endObject().endObject().toString();
  }
}
