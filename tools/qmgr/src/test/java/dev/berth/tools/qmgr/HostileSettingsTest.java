package dev.berth.tools.qmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.proto.Node;
import dev.berth.proto.ServerStatus;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Values with control characters (a node note from a mom, a setting from an older server) are
 * listed escaped, and print never turns one into a directive of its own.
 */
class HostileSettingsTest {
  private static final ServerStatus SERVER =
      ServerStatus.newBuilder()
          .setName("head")
          .putAttributes("comment", "ok\nset server managers += mallory@*")
          .putAttributes("acl_roots", "root@head,\u001b[8mroot@*")
          .build();
  private static final Node NODE =
      Node.newBuilder().setName("n1").setNp(1).setNote("fine\r\u001b[2K").build();

  private static void assertNoControlCharacterButLayout(String out) {
    for (char c : out.toCharArray()) {
      assertTrue(
          c == '\n' || c == '\t' || !ControlCharacters.is(c),
          "raw " + ControlCharacters.escape(c) + " in:\n" + out);
    }
  }

  @Test
  void listShowsThemEscaped() {
    String list =
        ListFormat.format(ObjectView.server(SERVER), ZoneOffset.UTC)
            + ListFormat.format(ObjectView.node(NODE), ZoneOffset.UTC);
    assertNoControlCharacterButLayout(list);
    assertTrue(list.contains("\tcomment = ok\\nset server managers += mallory@*\n"), list);
    assertTrue(list.contains("\tnote = fine\\r\\x1b[2K\n"), list);
  }

  @Test
  void printWritesNoDirectiveNobodySet() {
    String print =
        PrintFormat.script(ObjectType.SERVER, List.of(ObjectView.server(SERVER)))
            + PrintFormat.script(ObjectType.NODE, List.of(ObjectView.node(NODE)));
    assertNoControlCharacterButLayout(print);
    assertEquals(
        0,
        print.lines().filter(l -> l.startsWith("set server managers")).count(),
        "the comment stays one value: " + print);
  }
}
