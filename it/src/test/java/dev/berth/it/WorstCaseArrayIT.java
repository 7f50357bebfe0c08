package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static dev.berth.it.Timings.percentile;
import static dev.berth.it.Timings.timed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.BerthClient;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.RocksJournal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The worst-case array, as berth-bob can make it: {@code qsub -V -t 0-9999} with 225 KB of
 * environment, each job within the submission limits. Bob's {@code qstat -f -t} of it (2.2 GB
 * whole) is refused with a message while berth-alice's qstat and qsub go on; his qmove of it writes
 * small events; and the server, a real process with a 256 MiB heap, comes back with the array
 * intact from a replay of its journal and from a snapshot of it, which is about one job's size.
 */
@Tag("integration")
class WorstCaseArrayIT {
  private static final String HEAP = "256m";

  /** The reply limit the defaults give that heap (a sixty-fourth of it, at least 16 MiB). */
  private static final String REPLY = "16 MiB";

  private static final int SUBJOBS = 10_000;
  private static final int VARIABLE = 56_000;
  private static final Duration PROMPT = Duration.ofSeconds(10);

  static Path home;
  static ServerProcess server;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    home = Files.createTempDirectory(Path.of("/tmp"), "berth-array-");
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path script = home.resolve("job.sh");
    Files.writeString(script, "#PBS -l walltime=1:00\ntrue\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
    server =
        new ServerProcess(home)
            .environment("BERTH_HEAP", HEAP)
            .environment("BERTH_CLIENT_LIMITS", ServerProcess.SMALL_HEAP_LIMITS);
    assertTrue(server.start(), server.log());
    assertEquals(0, server.qmgr("create node n1 np=4").exit(), "no mom: jobs stay queued");
    for (String directive :
        List.of(
            "create queue long",
            "set queue long queue_type = execution",
            "set queue long enabled = true",
            "set queue long started = true")) {
      assertEquals(0, server.qmgr(directive).exit(), directive);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    JobFiles.removeTree(home);
  }

  @Test
  void bobsWorstCaseArrayIsRefusedToQstatFullMovesInSmallEventsAndSurvivesRestarts()
      throws Exception {
    TestCluster.Result submitted =
        server.as(
            BOB,
            bigEnvironment(),
            "qsub",
            "-o",
            "/dev/null",
            "-j",
            "oe",
            "-V",
            "-t",
            "0-9999",
            "job.sh");
    assertEquals(0, submitted.exit(), submitted.toString());
    String array = submitted.out().strip();
    String subjob = array.replace("[]", "[9999]");

    List<Duration> quiet = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      quiet.add(timed(() -> server.as(ALICE, Map.of(), "qstat")));
    }
    try (RemoteHeap heap = RemoteHeap.attach(server.pid())) {
      long live = heap.liveAfterGc();
      heap.resetPeak();
      long oldBefore = heap.oldGenerationPeak();
      assertTrue(oldBefore > 0, "the server's state is in an old generation");
      AtomicBoolean attacking = new AtomicBoolean(true);
      ConcurrentLinkedQueue<TestCluster.Result> bobs = new ConcurrentLinkedQueue<>();
      List<Thread> attackers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Thread a =
            new Thread(
                () -> {
                  while (attacking.get()) {
                    bobs.add(server.as(BOB, Map.of(), "qstat", "-f", "-t", array));
                  }
                });
        a.start();
        attackers.add(a);
      }
      List<Duration> qstats = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        qstats.add(timed(() -> server.as(ALICE, Map.of(), "qstat")));
        if (i % 10 == 0) {
          TestCluster.Result job =
              server.as(ALICE, Map.of(), "qsub", "-o", "/dev/null", "-j", "oe", "job.sh");
          assertEquals(0, job.exit(), job.toString());
        }
      }
      attacking.set(false);
      for (Thread a : attackers) {
        a.join(60_000);
      }
      long peak = heap.peak();
      long oldGrowth = heap.oldGenerationPeak() - oldBefore;
      Duration p99 = percentile(qstats, 99);
      System.out.printf(
          Locale.ROOT,
          "worst-case array (%d subjobs, %d KB environment): %d qstat -f -t of bob refused;"
              + " alice's qstat p99 %.3f s (before the attack %.3f s), median %.3f s, %d runs;"
              + " server heap peak %d MiB (sum of the pools' peaks, limit %s), %d MiB live"
              + " before, old generation grew by %.1f MiB at its peak%n",
          SUBJOBS,
          4 * VARIABLE / 1000,
          bobs.size(),
          p99.toMillis() / 1000.0,
          percentile(quiet, 99).toMillis() / 1000.0,
          percentile(qstats, 50).toMillis() / 1000.0,
          qstats.size(),
          peak >> 20,
          HEAP,
          live >> 20,
          oldGrowth / (double) (1 << 20));
      assertFalse(bobs.isEmpty());
      for (TestCluster.Result r : bobs) {
        assertEquals(
            "qstat: the reply about "
                + array
                + " would be larger than "
                + REPLY
                + ", the most the server sends at once; ask for fewer jobs at a time, or without"
                + " -t or -f\n",
            r.err(),
            r.toString());
        assertEquals("", r.out());
      }
      assertTrue(p99.compareTo(PROMPT) < 0, "alice's qstat p99 " + p99);
      // no reply was made whole (it would be 2 GB): the heap grew by a few MiB at most
      assertTrue(oldGrowth < 16L << 20, "the old generation grew by " + (oldGrowth >> 20) + " MiB");
      assertTrue(server.answers());
    }
    TestCluster.Result table = server.as(BOB, Map.of(), "qstat", "-t", array);
    assertEquals(0, table.exit(), table.err());
    assertEquals(SUBJOBS + 1 + 2, table.out().lines().count(), "what the table needs fits");

    TestCluster.Result moved = server.as(BOB, Map.of(), "qmove", "long", array);
    assertEquals(0, moved.exit(), moved.toString());

    server.kill9(); // the next start replays the journal: the submission, the moves
    restartAndCheck(array, subjob, "replayed");
    server.stop(); // a snapshot at the stop
    long snapshot = snapshotBytes();
    restartAndCheck(array, subjob, "from its snapshot of " + snapshot + " bytes");
    assertTrue(snapshot < 2L << 20, snapshot + " bytes");

    TestCluster.Result renamed = server.as(BOB, Map.of(), "qalter", "-N", "renamed", subjob);
    assertEquals(0, renamed.exit(), renamed.toString());
    server.kill9(); // the snapshot, then the alter after it
    restartAndCheck(array, subjob, "from the snapshot and the events after it");
    try (BerthClient c = BerthClient.connect(server.socket)) {
      Response r =
          c.call(Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(subjob)));
      assertEquals("renamed", r.getJobs().getJobs(0).getName());
    }
  }

  /** Starts the server and checks that bob's array is all there, and what the server keeps. */
  private static void restartAndCheck(String array, String subjob, String how) throws Exception {
    int logFrom = server.log().length();
    assertTrue(server.start(), server.log());
    Matcher recovered =
        Pattern.compile("recovered .*? in \\d+ ms").matcher(server.log().substring(logFrom));
    assertTrue(recovered.find(), server.log());
    try (RemoteHeap heap = RemoteHeap.attach(server.pid());
        BerthClient c = BerthClient.connect(server.socket)) {
      Response all =
          c.call(
              Request.newBuilder()
                  .setStatJobs(
                      StatJobs.newBuilder()
                          .addJobIds(array)
                          .setIncludeSubjobs(true)
                          .setBrief(true)));
      assertEquals(SUBJOBS + 1, all.getJobs().getJobsCount(), all.hasError() ? all.toString() : "");
      assertTrue(all.getJobs().getJobsList().stream().allMatch(j -> j.getQueue().equals("long")));
      Job one =
          c.call(Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(subjob)))
              .getJobs()
              .getJobs(0);
      assertEquals(
          4L * VARIABLE,
          one.getVariablesList().stream()
              .filter(v -> v.getName().startsWith("BIG"))
              .mapToLong(v -> v.getValue().length())
              .sum());
      System.out.printf(
          Locale.ROOT,
          "restart %s: %s; %d MiB live after a full GC%n",
          how,
          recovered.group(),
          heap.liveAfterGc() >> 20);
    }
  }

  /** The bytes of the latest snapshot's events, read with the server stopped. */
  private static long snapshotBytes() {
    try (RocksJournal j = RocksJournal.open(home.resolve("journal"))) {
      Journal.Snapshot s = j.latestSnapshot().orElseThrow();
      long bytes = 0;
      for (Event e : s.image()) {
        bytes += e.getSerializedSize();
      }
      return bytes;
    }
  }

  /** Four variables of 56,000 characters: 224 KB, within a job's 256 KiB. */
  private static Map<String, String> bigEnvironment() {
    Random random = new Random(30);
    Map<String, String> env = new java.util.TreeMap<>();
    for (int v = 0; v < 4; v++) {
      StringBuilder value = new StringBuilder();
      while (value.length() < VARIABLE) {
        value.append((char) ('a' + random.nextInt(26)));
      }
      env.put("BIG" + v, value.toString());
    }
    return env;
  }
}
