package dev.berth.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;

/**
 * Works around this machine's root profile, not Berth: root's ~/.bashrc runs {@code pyenv init},
 * whose rehash takes a lock file and waits up to 60 s for it. The tests run many root jobs in login
 * shells and kill some of them at once; one killed during its rehash leaves the lock behind, and
 * every later root job then starts 60 s late (seen as jobs that "hang" in unrelated tests). A
 * rehash holds the lock for well under a second, so a lock older than a few seconds is stale and is
 * removed here, in the test JVM, for as long as the tests run.
 */
final class PyenvLockSweeper {
  private static final Path LOCK =
      Path.of(System.getProperty("user.home"), ".pyenv", "shims", ".pyenv-shim");
  private static final Duration STALE = Duration.ofSeconds(5);

  private PyenvLockSweeper() {}

  static void start() {
    if (!Files.isDirectory(LOCK.getParent())) {
      return; // no pyenv here: nothing to sweep
    }
    Thread t = new Thread(PyenvLockSweeper::sweep, "pyenv-lock-sweeper");
    t.setDaemon(true);
    t.start();
  }

  private static void sweep() {
    while (true) {
      try {
        FileTime modified = Files.getLastModifiedTime(LOCK);
        if (modified.toInstant().isBefore(Instant.now().minus(STALE))) {
          Files.deleteIfExists(LOCK);
          System.err.println("removed a stale pyenv rehash lock " + LOCK);
        }
      } catch (IOException absent) {
        // no lock: nothing to do
      }
      TestCluster.sleep(1000);
    }
  }
}
