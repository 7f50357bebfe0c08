package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.Trash;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 30's first attack: an ordinary user's job leaves a 30,000-level directory tree in its
 * TMPDIR, which a mom once removed recursively on an actor thread, died of (StackOverflowError),
 * and died of again at every restart. Now the mom, a process of its own, moves the tree to its
 * trash and removes it off its actors as the job's owner: it stays up, another user's job runs and
 * his qstat answers meanwhile and after; and a mom stopped while such a tree is left comes back up
 * and removes it.
 */
@Tag("integration")
class DeepTreeIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NODE = "deep1";

  /** The job's tree: 30,000 levels, a directory and a file on each. */
  private static final String DEEP_TREE =
      "perl -e 'chdir $ENV{TMPDIR} or die; for (1..30000)"
          + " { mkdir \"d\" or die; chdir \"d\" or die; open F, \">f\"; close F }'\n";

  static MultiNodeCluster cluster;
  static Path aliceWork;
  static Path bobWork;
  static Path jobBase;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(ALICE, BOB);
    cluster = MultiNodeCluster.start();
    jobDirectoriesInMemory();
    cluster.startMom(NODE, "0-1");
    jobBase = Path.of(Files.readString(cluster.home.resolve("jobtmp")).strip()).resolve(NODE);
    aliceWork = MultiNodeCluster.workFor(ALICE, "berth-deep-alice-");
    bobWork = MultiNodeCluster.workFor(BOB, "berth-deep-bob-");
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(aliceWork);
    JobFiles.removeTree(bobWork);
  }

  /**
   * Bob's job runs on the same node from before alice's job ends until after its tree is gone, and
   * his qstat is asked over and over all along: every answer comes, and his job ends well.
   */
  @Test
  void aDeepTreeInTmpdirGoesWhileAnotherUsersJobRunsAndQstatAnswers() throws Exception {
    Path aliceGo = aliceWork.resolve("go-" + System.nanoTime());
    Path bobGo = bobWork.resolve("go-" + System.nanoTime());
    try (QstatLoop qstat = new QstatLoop()) {
      String tree =
          cluster.submitAs(
              ALICE, aliceWork, DEEP_TREE + "echo built\n" + waitFor(aliceGo), "-N", "tree");
      String bobs = cluster.submitAs(BOB, bobWork, waitFor(bobGo) + "echo bob ran\n", "-N", "bob");
      cluster.await(tree, j -> MultiNodeCluster.output(j).equals("built\n"), WAIT);
      cluster.await(bobs, j -> j.getState() == JobState.RUNNING, WAIT);

      Files.writeString(aliceGo, "");
      Job built = cluster.await(tree, j -> j.getState() == JobState.COMPLETED, WAIT);
      long completed = System.nanoTime();
      assertEquals(0, built.getExitStatus(), built.toString());
      assertFalse(Files.exists(tmpdir(tree)), "its TMPDIR went to the trash: the name is free");
      awaitTrue(() -> trash().isEmpty(), WAIT, () -> trash() + "\n" + cluster.momLog(NODE));
      System.out.printf(
          "the tree was gone %d ms after its job completed%n",
          (System.nanoTime() - completed) / 1_000_000);
      assertEquals(JobState.RUNNING, cluster.job(bobs).getState(), "bob's job ran throughout");
      assertTrue(cluster.momAlive(NODE), cluster.momLog(NODE));

      Files.writeString(bobGo, "");
      Job bob = cluster.await(bobs, j -> j.getState() == JobState.COMPLETED, WAIT);
      assertEquals(0, bob.getExitStatus());
      assertEquals("bob ran\n", MultiNodeCluster.output(bob));
      qstat.check();
    }
    assertTrue(cluster.momAlive(NODE));
    assertNoCleanupReported();
  }

  /**
   * The mom is stopped while a job that left a deep tree runs on; the job ends meanwhile. The mom
   * that starts again finds the job over and its tree left, and removes it.
   */
  @Test
  void aMomStoppedWithADeepTreeLeftComesBackAndRemovesIt() throws Exception {
    Path go = aliceWork.resolve("go-" + System.nanoTime());
    String tree =
        cluster.submitAs(ALICE, aliceWork, DEEP_TREE + "echo built\n" + waitFor(go), "-N", "left");
    Job running = cluster.await(tree, j -> MultiNodeCluster.output(j).equals("built\n"), WAIT);
    cluster.killMom(NODE);
    Files.writeString(go, "");
    awaitTrue(
        () -> ProcessHandle.of(running.getSessionId()).filter(ProcessHandle::isAlive).isEmpty(),
        WAIT);
    assertTrue(Files.isDirectory(tmpdir(tree)), "the tree is left while the mom is away");

    cluster.launchMom(NODE, "0-1");
    Job ended = cluster.await(tree, j -> j.getState() == JobState.COMPLETED, WAIT);
    assertEquals(0, ended.getExitStatus(), ended.toString());
    awaitTrue(
        () -> !Files.exists(tmpdir(tree)) && trash().isEmpty(),
        WAIT,
        () -> trash() + "\n" + cluster.momLog(NODE));
    cluster.awaitNode(NODE, "free");
    String bobs = cluster.submitAs(BOB, bobWork, "echo bob ran again\n", "-N", "bob2", "-j", "oe");
    Job bob = cluster.await(bobs, j -> j.getState() == JobState.COMPLETED, WAIT);
    assertEquals("bob ran again\n", MultiNodeCluster.output(bob));
    assertTrue(cluster.momAlive(NODE));
    assertNoCleanupReported();
  }

  /**
   * The node's job directories in memory (tmpfs), where there is one: on this project's loaded
   * two-core machine, ext4 took about 16 s to make the job's tree and 60 s to remove it (rm -rf as
   * long); the attack and the mom's walk are the same on both.
   */
  private static void jobDirectoriesInMemory() throws IOException {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      Path base = Files.createTempDirectory(shm, "berth-jobs-");
      Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx--x--x"));
      Path record = cluster.home.resolve("jobtmp"); // where the moms look for their base
      Files.writeString(record, base + "\n");
      Files.setPosixFilePermissions(record, PosixFilePermissions.fromString("rw-------"));
    }
  }

  /** A script's lines that wait until the test makes {@code file}. */
  private static String waitFor(Path file) {
    return "while [ ! -e " + file + " ]; do sleep 0.1; done\n";
  }

  /** Bob's qstat, asked over and over on a thread of its own until closed. */
  private static final class QstatLoop implements AutoCloseable {
    private final java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    private final List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger answers =
        new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong slowest =
        new java.util.concurrent.atomic.AtomicLong();
    private final Thread thread = new Thread(this::loop, "bob-qstat");

    QstatLoop() {
      thread.start();
    }

    private void loop() {
      while (!stop.get()) {
        long started = System.nanoTime();
        TestCluster.Result r = qstatAsBob();
        slowest.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
        if (r.exit() == 0) {
          answers.incrementAndGet();
        } else {
          failures.add(r.toString());
        }
      }
    }

    /** Every qstat so far answered. */
    void check() throws InterruptedException {
      close();
      System.out.printf(
          "bob's qstat answered %d times meanwhile, the slowest in %d ms%n",
          answers.get(), slowest.get());
      assertEquals(List.of(), failures);
      assertTrue(answers.get() > 0);
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      thread.join();
    }
  }

  private static Path tmpdir(String jobId) {
    return jobBase.resolve(jobId);
  }

  /** What the node's trash holds. */
  private static List<Path> trash() {
    try (Stream<Path> entries = Files.list(Trash.in(jobBase).dir())) {
      return entries.toList();
    } catch (java.nio.file.NoSuchFileException none) {
      return List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static TestCluster.Result qstatAsBob() {
    return TestCluster.exec(
        bobWork,
        List.of(
            "runuser",
            "-u",
            BOB,
            "--",
            "env",
            "BERTH_SERVER=" + cluster.socket,
            TestCluster.ROOT.resolve("ops/bin/qstat").toString()));
  }

  /** The node's status names nothing left to clean up. */
  private static void assertNoCleanupReported() {
    String node = cluster.cli("pbsnodes", "-a", NODE).out();
    assertFalse(node.contains("cleanup="), node);
  }
}
