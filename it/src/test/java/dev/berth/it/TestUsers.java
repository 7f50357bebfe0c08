package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

/**
 * Real local users for the tests (berth-alice, berth-bob). ops/test creates them; when the tests
 * run on their own they are created here, the same way.
 */
final class TestUsers {
  static final String ALICE = "berth-alice";
  static final String BOB = "berth-bob";

  private TestUsers() {}

  static void ensure(String... users) {
    for (String user : users) {
      if (TestCluster.exec(Path.of("/"), List.of("id", "-u", user)).exit() != 0) {
        var r = TestCluster.exec(Path.of("/"), List.of("useradd", "-m", "-s", "/bin/bash", user));
        assertEquals(0, r.exit(), "useradd " + user + ": " + r.err());
      }
    }
  }

  /**
   * The start of a command line that runs what follows as {@code user} with only the environment a
   * login shell would give them (more NAME=value words may follow; a later one wins).
   */
  static List<String> loginEnv(String user) {
    return List.of(
        "runuser",
        "-u",
        user,
        "--",
        "env",
        "-i",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "HOME=" + home(user),
        "USER=" + user,
        "LOGNAME=" + user,
        "SHELL=/bin/bash");
  }

  static Path home(String user) {
    return Path.of("/home", user);
  }
}
