package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Real local users for the tests (berth-alice, berth-bob). ops/test creates them; when the tests
 * run on their own they are created here, the same way.
 */
final class TestUsers {
  static final String ALICE = "berth-alice";
  static final String BOB = "berth-bob";

  private TestUsers() {}

  /**
   * Creates the users that do not exist yet. Test classes run in parallel JVMs, and useradd refuses
   * to run while another holds /etc/passwd's lock, so the JVMs take turns here.
   */
  static void ensure(String... users) {
    try (FileChannel lock =
            FileChannel.open(
                Path.of("/run/lock/berth-test-users.lock"),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock held = lock.lock()) {
      for (String user : users) {
        if (TestCluster.exec(Path.of("/"), List.of("id", "-u", user)).exit() != 0) {
          var r = TestCluster.exec(Path.of("/"), List.of("useradd", "-m", "-s", "/bin/bash", user));
          assertEquals(0, r.exit(), "useradd " + user + ": " + r.err());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
