package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** User and group lookups through the C library, checked against what getent says. */
class LinuxUsersTest {
  private static final Path LIBRARY =
      Path.of("target/native").resolve(NativeLibrary.FILE).toAbsolutePath();

  private final LinuxUsers users = new LinuxUsers(LIBRARY);

  @Test
  void findsAUserAsGetentDoes() throws Exception {
    UserInfo root = users.user("root").orElseThrow();
    String[] passwd = getent("passwd", "root").split(":");
    assertEquals("root", root.name());
    assertEquals(0, root.uid());
    assertEquals(0, root.gid());
    assertEquals(passwd[5], root.home());
    assertEquals(passwd[6], root.shell());
    assertTrue(root.groups().contains(0), root.groups().toString());
  }

  @Test
  void unknownOrMalformedNamesFindNothing() {
    assertEquals(Optional.empty(), users.user("no-such-user-berth"));
    assertEquals(Optional.empty(), users.user("../etc"));
    assertEquals(Optional.empty(), users.groupId("no-such-group-berth"));
  }

  @Test
  void findsAGroupsId() throws Exception {
    String[] group = getent("group", "daemon").split(":");
    assertEquals(Optional.of(Integer.parseInt(group[2])), users.groupId("daemon"));
  }

  private static String getent(String database, String key) throws Exception {
    Process p = new ProcessBuilder("getent", database, key).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    assertEquals(0, p.waitFor());
    return out;
  }
}
