package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLocationTest {
  private static final Path USER_DEFAULT =
      Path.of(System.getProperty("user.home"), ".berth", "server.sock");

  @TempDir Path tmp;

  private Path existingSystemSocket() throws IOException {
    return Files.createFile(tmp.resolve("system.sock"));
  }

  private Path missingSystemSocket() {
    return tmp.resolve("absent.sock");
  }

  @Test
  void homeIsBerthHome() {
    assertEquals(Path.of("/srv/berth"), ServerLocation.home(Map.of("BERTH_HOME", "/srv/berth")));
  }

  @Test
  void relativeBerthHomeIsMadeAbsolute() {
    Path home = ServerLocation.home(Map.of("BERTH_HOME", "state"));
    assertEquals(Path.of("state").toAbsolutePath(), home);
  }

  @Test
  void homeDefaultsToDotBerthInUserHome() {
    Path expected = Path.of(System.getProperty("user.home"), ".berth");
    assertEquals(expected, ServerLocation.home(Map.of()));
    assertEquals(expected, ServerLocation.home(Map.of("BERTH_HOME", "  ")));
  }

  @Test
  void berthServerWinsOverEverything() throws IOException {
    Path system = existingSystemSocket();
    Map<String, String> env = Map.of("BERTH_SERVER", "/tmp/x.sock", "BERTH_HOME", "/srv/berth");
    assertEquals(Path.of("/tmp/x.sock"), ServerLocation.clientSocket(env, system));
    assertEquals(Path.of("/tmp/x.sock"), ServerLocation.clientSocket(env));
  }

  @Test
  void berthServerIsTakenAsGiven() {
    assertEquals(
        Path.of("rel/x.sock"), ServerLocation.clientSocket(Map.of("BERTH_SERVER", "rel/x.sock")));
  }

  @Test
  void berthServerMayListAServerAndItsStandbys() {
    Map<String, String> env = Map.of("BERTH_SERVER", "/a/server.sock, /b/server.sock,");
    assertEquals(
        java.util.List.of(Path.of("/a/server.sock"), Path.of("/b/server.sock")),
        ServerLocation.clientSockets(env));
    assertEquals(Path.of("/a/server.sock"), ServerLocation.clientSocket(env));
  }

  @Test
  void withoutBerthServerThereIsOneSocketToTry() {
    assertEquals(
        java.util.List.of(Path.of("/srv/berth/server.sock")),
        ServerLocation.clientSockets(Map.of("BERTH_HOME", "/srv/berth"), missingSystemSocket()));
  }

  @Test
  void blankBerthServerIsIgnored() {
    Map<String, String> env = Map.of("BERTH_SERVER", " ", "BERTH_HOME", "/srv/berth");
    assertEquals(
        Path.of("/srv/berth/server.sock"), ServerLocation.clientSocket(env, missingSystemSocket()));
  }

  @Test
  void systemSocketWhenItExistsAndNoHomeIsSet() throws IOException {
    Path system = existingSystemSocket();
    assertEquals(system, ServerLocation.clientSocket(Map.of(), system));
  }

  @Test
  void berthHomeWinsOverTheSystemSocket() throws IOException {
    // a user running a private server sets BERTH_HOME and reaches it even where root runs one
    Path system = existingSystemSocket();
    assertEquals(
        Path.of("/srv/berth/server.sock"),
        ServerLocation.clientSocket(Map.of("BERTH_HOME", "/srv/berth"), system));
    assertEquals(
        Path.of("/srv/berth/server.sock"),
        ServerLocation.clientSocket(Map.of("BERTH_HOME", "/srv/berth")));
  }

  @Test
  void userDefaultWhenThereIsNoSystemSocket() {
    assertEquals(USER_DEFAULT, ServerLocation.clientSocket(Map.of(), missingSystemSocket()));
  }

  @Test
  void blankBerthHomeSkipsTheSystemSocketLikeTheDaemon() throws IOException {
    // The daemon listens on the system socket only when BERTH_HOME is unset (null), so a blank
    // BERTH_HOME means ~/.berth on both sides.
    Path system = existingSystemSocket();
    assertEquals(USER_DEFAULT, ServerLocation.clientSocket(Map.of("BERTH_HOME", ""), system));
  }

  @Test
  void systemSocketConstant() {
    assertEquals(Path.of("/run/berth/server.sock"), ServerLocation.SYSTEM_SOCKET);
  }
}
