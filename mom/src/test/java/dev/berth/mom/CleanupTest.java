package dev.berth.mom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.mom.nodejob.SuspenderTest;
import dev.berth.mom.os.ContainerCache;
import dev.berth.mom.os.Trash;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's trash emptied off the actors: what jobs left goes as its owner, what cannot go is
 * reported and tried again later, less and less often, until it goes; a mom that starts empties
 * what an earlier one left.
 */
class CleanupTest {
  private static final int NOBODY = 65534;

  @TempDir Path dir;

  private final SuspenderTest.TestClock clock = new SuspenderTest.TestClock();
  private final List<String> told = new CopyOnWriteArrayList<>();

  @Test
  void whatJobsLeftGoesAsItsOwner() throws Exception {
    assumeRoot();
    Path base = jobBase();
    Path tmpdir = tmpdirOf(base, "1.srv", NOBODY);
    Files.writeString(tmpdir.resolve("output"), "x");
    Path spool = tmpdirOf(base, "1.srv.spool", 0);
    Files.createDirectories(spool.resolve("a/b"));
    Trash trash = Trash.in(base);
    assertTrue(trash.discard(tmpdir));
    assertTrue(trash.discard(spool));
    assertFalse(trash.discard(base.resolve("2.srv")), "nothing there");
    assertFalse(Files.exists(tmpdir), "the job's name is free at once");
    List<Trash.Entry> entries = trash.entries();
    assertEquals(2, entries.size());
    assertTrue(entries.stream().anyMatch(e -> e.uid() == NOBODY && e.gid() == NOBODY));
    Cleanup cleanup = new Cleanup(List.of(trash), null, told::add, clock);
    assertEquals(Long.MAX_VALUE, cleanup.round(), "nothing to try again");
    assertEquals(List.of(), trash.entries());
    assertEquals("", cleanup.summary());
    assertEquals(List.of(), told, "nothing changed");
  }

  /**
   * Another user's directory in a job's tree cannot go as the job's owner: the tree stays, the
   * node's status says so, and it is tried again after 10 s, then 20 s, until it goes.
   */
  @Test
  void aTreeThatCannotGoIsReportedAndTriedAgainUntilItGoes() throws Exception {
    assumeRoot();
    Path base = jobBase();
    Path tmpdir = tmpdirOf(base, "1.srv", NOBODY);
    Path theirs = Files.createDirectories(tmpdir.resolve("shared/root's"));
    Files.writeString(theirs.resolve("file"), "root's");
    Files.setAttribute(theirs.getParent(), "unix:uid", NOBODY);
    Trash trash = Trash.in(base);
    trash.discard(tmpdir);
    Cleanup cleanup = new Cleanup(List.of(trash), null, told::add, clock);

    long retry = cleanup.round();
    assertEquals(clock.millis() + 10_000, retry);
    String reported =
        "1 directory left in the trash (cannot remove a file 2 levels down: Permission denied;"
            + " tried 1 time)";
    assertEquals(reported, cleanup.summary());
    assertEquals(List.of(reported), told);
    assertEquals(retry, cleanup.round(), "not tried again before its time");
    assertEquals(1, told.size());

    clock.millis = retry;
    assertEquals(clock.millis() + 20_000, cleanup.round(), "the wait doubles");
    assertEquals(reported.replace("1 time", "2 times"), cleanup.summary());

    Files.delete(trash.dir().resolve(trash.entries().get(0).name()).resolve("shared/root's/file"));
    clock.millis += 20_000;
    assertEquals(Long.MAX_VALUE, cleanup.round());
    assertEquals(List.of(), trash.entries());
    assertEquals("", cleanup.summary());
    assertEquals("", told.get(told.size() - 1), "told that nothing is left");
  }

  /** A mom that starts finds what an earlier one left in its trash, and removes it at once. */
  @Test
  void whatAnEarlierMomLeftGoesWhenTheThreadStarts() throws Exception {
    Path base = jobBase();
    Path tmpdir = tmpdirOf(base, "7.srv", 0);
    Files.createDirectories(tmpdir.resolve("a/b/c"));
    Trash trash = Trash.in(base);
    trash.discard(tmpdir);
    try (Cleanup cleanup = new Cleanup(List.of(trash), null, told::add, clock)) {
      cleanup.start();
      awaitEmpty(trash);
      Path later = tmpdirOf(base, "8.srv", 0);
      trash.discard(later);
      cleanup.poke(); // a job has gone
      awaitEmpty(trash);
    }
  }

  /** The container cache is kept within its limit in each round, its evictions removed in it. */
  @Test
  void theContainerCacheIsKeptWithinItsLimit() throws Exception {
    Path cacheBase = dir.resolve("cache");
    Path entry = Files.createDirectories(cacheBase.resolve("0/sha256").resolve("a".repeat(64)));
    Files.write(entry.resolve("payload"), new byte[100]);
    Files.setLastModifiedTime(entry, FileTime.fromMillis(1_000));
    ContainerCache cache = new ContainerCache(cacheBase, 10);
    Trash trash = Trash.in(cacheBase);
    Cleanup cleanup = new Cleanup(List.of(trash), cache, told::add, clock);
    cleanup.round();
    assertFalse(Files.exists(entry));
    assertEquals(List.of(), trash.entries());
  }

  private static void assumeRoot() {
    assumeTrue(System.getProperty("user.name").equals("root"), "needs root to act as nobody");
  }

  private static void awaitEmpty(Trash trash) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!trash.entries().isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "the trash is still " + trash.entries());
      Thread.sleep(10);
    }
  }

  /** A base as the mom makes it: its own, 0711. */
  private Path jobBase() throws IOException {
    Path base = Files.createDirectory(dir.resolve("base"));
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx--x--x"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    return base;
  }

  /** A job's directory in the base, owned by {@code uid}, 0700. */
  private static Path tmpdirOf(Path base, String name, int uid) throws IOException {
    Path tmpdir = Files.createDirectory(base.resolve(name));
    Files.setPosixFilePermissions(tmpdir, PosixFilePermissions.fromString("rwx------"));
    if (uid != 0) {
      Files.setAttribute(tmpdir, "unix:uid", uid);
      Files.setAttribute(tmpdir, "unix:gid", uid);
    }
    return tmpdir;
  }
}
