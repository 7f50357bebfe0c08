package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trees a job's owner controls, removed for real: as deep as an owner can make them with a bounded
 * number of open directories, wide, with links to elsewhere, changed while they go, closed with
 * mode 0 — and as the owner, so that what the owner could not remove stays.
 */
class TreeRemoverTest {
  private static final int NOBODY = 65534;
  private static final int DEEP = 30_000;

  @TempDir Path dir;

  /**
   * Where the deep trees are made: in memory (/dev/shm) where there is one. On this project's
   * loaded two-core machine, ext4 took about 16 s to make the 30,000 levels and 60 s to remove them
   * (rm -rf as long); tmpfs 2.4 s to remove them. The walk is the same on both; the other tests
   * here run on the disk.
   */
  private Path deep;

  @BeforeEach
  void deepScratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    deep =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? Files.createTempDirectory(shm, "berth-trees-")
            : Files.createDirectory(dir.resolve("deep"));
    Files.setPosixFilePermissions(deep, PosixFilePermissions.fromString("rwx--x--x"));
  }

  @AfterEach
  void removeDeepScratch() throws IOException {
    JobFiles.removeTree(deep);
  }

  @Test
  void aTreeOf30000LevelsGoesWithABoundedNumberOfOpenDirectories() throws Exception {
    Path top = Files.createDirectory(deep.resolve("job"));
    chain(top, DEEP, null);
    AtomicInteger mostSeen = new AtomicInteger();
    TreeRemover.Outcome outcome =
        whileSampling(
            () -> mostSeen.accumulateAndGet(openBelow(deep), Math::max),
            () -> TreeRemover.remove(deep, "job", -1, -1, TreeRemover.SLICE));
    System.out.printf(
        "removed %d levels (%d entries, %d directories moved up) in %d ms, at most %d directories"
            + " open (seen in /proc/self/fd: %d)%n",
        DEEP, outcome.removed(), outcome.movedUp(), lastMillis, outcome.mostOpen(), mostSeen.get());
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertEquals(2L * DEEP, outcome.removed(), "each level's directory and file");
    assertFalse(Files.exists(top));
    assertTrue(outcome.mostOpen() <= TreeRemover.MOST_OPEN, outcome.toString());
    assertTrue(mostSeen.get() <= TreeRemover.MOST_OPEN, "seen open: " + mostSeen.get());
    assertTrue(mostSeen.get() > 2, "the walk was seen holding directories: " + mostSeen.get());
  }

  @Test
  void aWideDirectoryGoesABatchAtATime() throws IOException {
    Path top = Files.createDirectory(dir.resolve("job"));
    for (int i = 0; i < 3_000; i++) {
      Files.createFile(top.resolve("f" + i));
    }
    for (int i = 0; i < 100; i++) {
      Files.createFile(Files.createDirectory(top.resolve("d" + i)).resolve("f"));
    }
    TreeRemover.Outcome outcome = TreeRemover.remove(dir, "job", -1, -1, TreeRemover.SLICE);
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertEquals(3_200, outcome.removed());
    assertEquals(3, outcome.mostOpen(), "the parent, the top and one directory below it");
    assertFalse(Files.exists(top));
  }

  @Test
  void linksGoButNotWhatTheyPointTo() throws Exception {
    Path outside = Files.createDirectory(dir.resolve("outside"));
    Path precious = Files.writeString(outside.resolve("precious"), "keep me");
    Path top = Files.createDirectory(dir.resolve("job"));
    Files.createSymbolicLink(top.resolve("to-dir"), outside);
    Files.createSymbolicLink(top.resolve("to-file"), precious);
    Files.createSymbolicLink(top.resolve("dangling"), dir.resolve("nothing"));
    chain(top, 40, null); // deeper than the walk enters: its bottom is moved up first
    Path deep = top;
    for (int i = 0; i < 40; i++) {
      deep = deep.resolve("d");
    }
    Files.createSymbolicLink(deep.resolve("to-dir"), outside);
    TreeRemover.Outcome outcome = TreeRemover.remove(dir, "job", -1, -1, TreeRemover.SLICE);
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertTrue(outcome.movedUp() > 0, outcome.toString());
    assertFalse(Files.exists(top));
    assertEquals("keep me", Files.readString(precious));
    assertEquals(List.of(precious), list(outside));
  }

  /** Between two slices, the owner swaps the directories not yet removed for links. */
  @Test
  void aDirectorySwappedForALinkMidWayIsRemovedAsALink() throws IOException {
    Path outside = Files.createDirectory(dir.resolve("outside"));
    for (int i = 0; i < 50; i++) {
      Files.writeString(outside.resolve("precious" + i), "keep me");
    }
    Path top = Files.createDirectory(dir.resolve("job"));
    for (int i = 0; i < 20; i++) {
      Path sub = Files.createDirectory(top.resolve("a" + i));
      for (int j = 0; j < 10; j++) {
        Files.createFile(sub.resolve("f" + j));
      }
    }
    TreeRemover.Outcome first = TreeRemover.remove(dir, "job", -1, -1, 35);
    assertEquals(TreeRemover.State.MORE, first.state());
    assertEquals(35, first.removed());
    Path away = Files.createDirectory(dir.resolve("away"));
    for (Path sub : list(top)) {
      Files.move(sub, away.resolve(sub.getFileName()));
      Files.createSymbolicLink(sub, outside);
    }
    TreeRemover.Outcome rest = TreeRemover.remove(dir, "job", -1, -1, TreeRemover.SLICE);
    assertEquals(TreeRemover.State.REMOVED, rest.state(), rest.problem());
    assertFalse(Files.exists(top));
    assertEquals(50, list(outside).size(), "nothing behind the links was touched");
  }

  /**
   * While the walk runs, the owner keeps replacing directories with links to elsewhere: the walk
   * opens every directory from its open parent without following a link, so it never gets there.
   */
  @Test
  void anOwnerChangingTheTreeAsItGoesCannotSteerIt() throws Exception {
    Path outside = Files.createDirectory(dir.resolve("outside"));
    for (int i = 0; i < 50; i++) {
      Files.writeString(outside.resolve("precious" + i), "keep me");
    }
    Path top = Files.createDirectory(dir.resolve("job"));
    List<Path> subs = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Path sub = Files.createDirectories(top.resolve("a" + i).resolve("b"));
      for (int j = 0; j < 10; j++) {
        Files.createFile(sub.resolve("f" + j));
      }
      subs.add(sub);
    }
    Path away = Files.createDirectory(dir.resolve("away"));
    AtomicInteger swapped = new AtomicInteger();
    TreeRemover.Outcome outcome =
        whileSampling(
            () -> {
              Path sub = subs.get(swapped.get() % subs.size());
              try {
                Files.move(sub, away.resolve("b" + swapped.get()));
                Files.createSymbolicLink(sub, outside);
              } catch (IOException gone) {
                // the walk got there first
              }
              swapped.incrementAndGet();
            },
            () -> TreeRemover.remove(dir, "job", -1, -1, TreeRemover.SLICE));
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertFalse(Files.exists(top));
    assertEquals(50, list(outside).size(), "nothing behind the links was touched");
  }

  @Test
  void aBudgetStopsTheWalkAndTheNextCallGoesOn() throws IOException {
    Path top = Files.createDirectory(dir.resolve("job"));
    for (int i = 0; i < 100; i++) {
      Files.createFile(top.resolve("f" + i));
    }
    long removed = 0;
    int calls = 0;
    TreeRemover.Outcome outcome;
    do {
      outcome = TreeRemover.remove(dir, "job", -1, -1, 30);
      removed += outcome.removed();
      calls++;
    } while (outcome.state() == TreeRemover.State.MORE);
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertEquals(100, removed);
    assertEquals(4, calls);
    assertFalse(Files.exists(top));
  }

  /** Directories the owner made mode 0 (or read-only) are theirs to open up, and go. */
  @Test
  void directoriesTheOwnerClosedGoAsTheOwner() throws Exception {
    assumeRoot();
    Path top = ownedByNobody(dir.resolve("job"));
    asNobody(
        top,
        "mkdir -p a/b/c && touch a/b/c/f a/g && chmod 0 a/b/c a/b && chmod 500 a"
            + " && mkdir x && touch x/y && chmod 0 x && chmod 500 .");
    TreeRemover.Outcome outcome = TreeRemover.remove(dir, "job", NOBODY, NOBODY, 1000);
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertFalse(Files.exists(top));
  }

  /**
   * What the owner could not remove (another user's directory in their tree) stays, and the reason
   * comes back without a name from the tree; removed as root, it goes. The thread's own identity is
   * back after the call.
   */
  @Test
  void whatTheOwnerCouldNotRemoveStays() throws Exception {
    assumeRoot();
    String before = identity();
    Path top = ownedByNobody(dir.resolve("job"));
    asNobody(
        top, "mkdir -p mine/deeper && touch mine/deeper/f && mkdir theirs && chmod 777 theirs");
    Path foreign = Files.createDirectory(top.resolve("theirs").resolve("root's"));
    Files.writeString(foreign.resolve("file"), "not nobody's");
    TreeRemover.Outcome outcome = TreeRemover.remove(dir, "job", NOBODY, NOBODY, 1000);
    assertEquals(TreeRemover.State.FAILED, outcome.state());
    assertEquals("cannot remove a file 2 levels down: Permission denied", outcome.problem());
    assertEquals("not nobody's", Files.readString(foreign.resolve("file")));
    assertFalse(Files.exists(top.resolve("mine")), "the owner's own part went");
    assertEquals(before, identity(), "the thread's identity is its own again");
    assertEquals(TreeRemover.State.REMOVED, TreeRemover.remove(dir, "job", -1, -1, 1000).state());
  }

  /**
   * The owner's identity is the removing thread's alone: while one thread removes a deep tree as
   * nobody, another thread of the JVM keeps root's.
   */
  @Test
  void onlyTheRemovingThreadTakesTheOwnersIdentity() throws Exception {
    assumeRoot();
    Path top = ownedByNobody(deep.resolve("job"));
    chain(top, DEEP, NOBODY);
    Path removing = Path.of("/proc/self/task").resolve(threadId()).resolve("status");
    AtomicBoolean seenAsNobody = new AtomicBoolean();
    AtomicBoolean othersKept = new AtomicBoolean(true);
    TreeRemover.Outcome outcome =
        whileSampling(
            () -> {
              try {
                String mine = fsuid(Path.of("/proc/thread-self/status"));
                if (fsuid(removing).equals(Integer.toString(NOBODY))) {
                  seenAsNobody.set(true);
                  othersKept.compareAndSet(true, mine.equals("0"));
                }
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            () -> TreeRemover.remove(deep, "job", NOBODY, NOBODY, TreeRemover.SLICE));
    assertEquals(TreeRemover.State.REMOVED, outcome.state(), outcome.problem());
    assertTrue(seenAsNobody.get(), "the removing thread was seen as nobody");
    assertTrue(othersKept.get(), "meanwhile another thread was root");
  }

  private long lastMillis;

  /** Runs {@code sample} over and over on another thread for as long as {@code work} takes. */
  private TreeRemover.Outcome whileSampling(
      Runnable sample, java.util.function.Supplier<TreeRemover.Outcome> work) throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    Thread sampler =
        new Thread(
            () -> {
              while (!done.get()) {
                sample.run();
              }
            });
    sampler.start();
    long started = System.nanoTime();
    try {
      return work.get();
    } finally {
      lastMillis = (System.nanoTime() - started) / 1_000_000;
      done.set(true);
      sampler.join();
    }
  }

  /**
   * Directories open in this process below {@code root}, {@code root} included; a descriptor whose
   * path is too long for the kernel to name is one deep in a test tree.
   */
  private static int openBelow(Path root) {
    int count = 0;
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : fds) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(root)) {
            count++;
          }
        } catch (NoSuchFileException closed) {
          // closed meanwhile
        } catch (FileSystemException tooLong) {
          count++;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return count;
  }

  /**
   * A chain of {@code levels} directories "d" below {@code top}, each with a file "f", made as
   * {@code uid} (null: as this process).
   */
  private static void chain(Path top, int levels, Integer uid) throws Exception {
    List<String> argv = new ArrayList<>();
    if (uid != null) {
      argv.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
    }
    argv.addAll(
        List.of(
            "perl",
            "-e",
            "for (1.."
                + levels
                + ") { mkdir 'd' or die; chdir 'd' or die; open F, '>f'; close F }"));
    run(top, argv);
  }

  private static void asNobody(Path cwd, String script) throws Exception {
    run(
        cwd,
        List.of(
            "setpriv",
            "--reuid=" + NOBODY,
            "--regid=" + NOBODY,
            "--clear-groups",
            "sh",
            "-c",
            script));
  }

  private static void run(Path cwd, List<String> argv) throws Exception {
    Process p = new ProcessBuilder(argv).directory(cwd.toFile()).inheritIO().start();
    assertEquals(0, p.waitFor(), String.join(" ", argv));
  }

  private static Path ownedByNobody(Path top) throws IOException {
    Files.setPosixFilePermissions(
        Files.createDirectory(top), PosixFilePermissions.fromString("rwx------"));
    Files.setAttribute(top, "unix:uid", NOBODY);
    Files.setAttribute(top, "unix:gid", NOBODY);
    // nobody must reach it: the test's own directory is root's, 0700
    Files.setPosixFilePermissions(top.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
    return top;
  }

  private static List<Path> list(Path directory) throws IOException {
    try (Stream<Path> s = Files.list(directory)) {
      return s.sorted().toList();
    }
  }

  private static void assumeRoot() {
    assumeTrue(System.getProperty("user.name").equals("root"), "needs root to act as nobody");
  }

  /** This thread's id in /proc/self/task. */
  private static String threadId() throws IOException {
    return Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
  }

  /** This thread's user and group ids and groups, as the kernel shows them. */
  private static String identity() throws IOException {
    return Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
        .filter(l -> l.startsWith("Uid:") || l.startsWith("Gid:") || l.startsWith("Groups:"))
        .toList()
        .toString();
  }

  /** The file-system user id in a thread's status (the last of the Uid line). */
  private static String fsuid(Path status) throws IOException {
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("Uid:")) {
        String[] ids = line.split("\\s+");
        return ids[ids.length - 1];
      }
    }
    return "";
  }
}
