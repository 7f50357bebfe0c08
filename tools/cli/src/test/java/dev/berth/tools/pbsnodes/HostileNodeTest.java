package dev.berth.tools.pbsnodes;

import static dev.berth.tools.testing.TerminalSafety.assertSafe;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Node;
import dev.berth.proto.NodeStatus;
import dev.berth.tools.testing.TerminalSafety;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node's note and status come from operators and from its mom, which may be compromised: every
 * pbsnodes view shows their control characters escaped.
 */
class HostileNodeTest {
  private static final NodeStatus NODE =
      NodeStatus.newBuilder()
          .setNode(
              Node.newBuilder()
                  .setName("n1")
                  .setNp(2)
                  .addProperties("fast\u001b[5m")
                  .setNote("disk ok\n" + TerminalSafety.FORGED)
                  .putStatus("uname", "Linux\u001b]0;owned\u0007")
                  .putStatus("loadave\r", "0.1"))
          .setState("free")
          .build();

  @Test
  void everyViewEscapesNotesPropertiesAndStatus() {
    String block = NodeFormats.block(NODE);
    assertSafe(block);
    assertTrue(block.contains("     note = disk ok\\n    Job_Owner = root@head\n"), block);
    assertSafe(NodeFormats.listLine(NODE, true));
    assertSafe(NodeFormats.listLine(NODE, false));
    String xml = NodeFormats.xml(List.of(NODE));
    assertSafe(xml);
    assertTrue(xml.endsWith("</Data>\n") && xml.indexOf('\n') == xml.length() - 1, xml);
    String json = NodeFormats.json(List.of(NODE), "srv", "Berth-0.1.0", 0, ZoneOffset.UTC);
    assertSafe(json);
    assertTrue(json.contains("\"loadave\\r\":\"0.1\""), json);
  }
}
