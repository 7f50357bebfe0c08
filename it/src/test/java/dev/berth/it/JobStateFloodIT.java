package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static dev.berth.it.Timings.percentile;
import static dev.berth.it.Timings.timed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitJob;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * berth-bob submits jobs with the largest scripts and environments the server takes, and arrays of
 * them, through his own client as fast as it goes: 800 submissions, more bytes than the server's
 * whole heap (a real process with 256 MiB, so user_jobs is 16 MiB; with the limits lifted, such a
 * server runs out of memory after about 450 of them, and again at every start). It takes them until
 * his jobs hold his share of its memory and refuses the rest saying so, while berth-alice's qsub
 * and qstat go on. The server stays up, and comes back from its journal and from its snapshot with
 * bob's jobs and the same account of them.
 */
@Tag("integration")
class JobStateFloodIT {
  private static final String HEAP = "256m";

  /** What user_jobs is by default with that heap: a sixteenth of it. */
  private static final String USER_JOBS = "16 MiB";

  /** The largest script jobscript_max_size takes by default (512kb), nearly. */
  private static final int SCRIPT = 500_000;

  /** Four values of near the most a value may be: 224 KB, within a job's 256 KiB. */
  private static final int VARIABLE = 56_000;

  private static final int ROUNDS = 20;
  private static final int PER_ROUND = 40;
  private static final Duration PROMPT = Duration.ofSeconds(10);
  private static final Pattern TAKEN =
      Pattern.compile("Maximum memory for jobs already taken by user " + BOB + ": ([^,]+),");

  /**
   * qsub of {@code script} by {@code user} from the server's home, which they may not write (its
   * jobs never run here): their output goes nowhere, which qsub accepts (OutputChecks).
   */
  private static TestCluster.Result qsub(String user, String script) {
    return server.as(user, Map.of(), "qsub", "-o", "/dev/null", "-j", "oe", script);
  }

  static Path home;
  static ServerProcess server;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    home = Files.createTempDirectory(Path.of("/tmp"), "berth-state-");
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    write("job.sh", "#PBS -l walltime=1:00\ntrue\n");
    write("big.sh", "true\n" + "#".repeat(SCRIPT) + "\n");
    server =
        new ServerProcess(home)
            .environment("BERTH_HEAP", HEAP)
            .environment("BERTH_CLIENT_LIMITS", ServerProcess.SMALL_HEAP_LIMITS);
    assertTrue(server.start(), server.log());
    assertEquals(0, server.qmgr("create node n1 np=4").exit(), "no mom: jobs stay queued");
  }

  private static void write(String name, String text) throws IOException {
    Path file = home.resolve(name);
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    JobFiles.removeTree(home);
  }

  @Test
  void bobsFloodStopsAtHisShareOfTheHeapWhileAlicesCommandsGoOn() throws Exception {
    List<Duration> quiet = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      quiet.add(timed(() -> server.as(ALICE, Map.of(), "qstat")));
    }
    Flood flood = new Flood();
    List<Duration> qstats = new ArrayList<>();
    long peak;
    long live;
    long liveBefore;
    try (RemoteHeap heap = RemoteHeap.attach(server.pid())) {
      liveBefore = heap.liveAfterGc();
      heap.resetPeak();
      Thread bob = new Thread(flood);
      bob.start();
      int round = 0;
      while (bob.isAlive() || round < 20) {
        qstats.add(timed(() -> server.as(ALICE, Map.of(), "qstat")));
        if (round++ % 5 == 0) {
          TestCluster.Result job = qsub(ALICE, "job.sh");
          assertEquals(0, job.exit(), "alice's qsub during the flood: " + job);
        }
      }
      bob.join();
      peak = heap.peak();
      live = heap.liveAfterGc();
    }
    assertEquals(null, flood.failure.get(), "bob's client");
    Duration p99 = percentile(qstats, 99);
    System.out.printf(
        Locale.ROOT,
        "job state flood: bob sent %d submissions (%d MB), %d taken, %d refused (%s);"
            + " alice's qstat p99 %.3f s (before %.3f s), median %.3f s, %d runs;"
            + " server heap peak %d MiB (sum of the pools' peaks, limit %s), live %d MiB before"
            + " and %d MiB after%n",
        flood.sent,
        flood.bytes / 1_000_000,
        flood.taken,
        flood.refused,
        flood.lastRefusal,
        p99.toMillis() / 1000.0,
        percentile(quiet, 99).toMillis() / 1000.0,
        percentile(qstats, 50).toMillis() / 1000.0,
        qstats.size(),
        peak >> 20,
        HEAP,
        liveBefore >> 20,
        live >> 20);
    assertTrue(flood.taken > 0 && flood.refused > flood.taken, flood.taken + " taken");
    assertTrue(flood.lastRefusal.contains("user_jobs = " + USER_JOBS), flood.lastRefusal);
    assertTrue(p99.compareTo(PROMPT) < 0, "alice's qstat p99 " + p99);
    assertTrue(live - liveBefore < 24L << 20, "the state grew by " + (live - liveBefore >> 20));
    assertTrue(server.answers(), server.log());

    String taken = refusedAgain();
    server.kill9(); // the next start replays the journal
    assertTrue(server.start(), server.log());
    assertEquals(taken, refusedAgain(), "after a replay of the journal");
    alicesQsub();
    server.stop(); // a snapshot at the stop
    assertTrue(server.start(), server.log());
    assertEquals(taken, refusedAgain(), "after a start from the snapshot");
    alicesQsub();
  }

  /** Bob's qsub of big.sh is refused; what it says his jobs take. */
  private static String refusedAgain() {
    TestCluster.Result r = qsub(BOB, "big.sh");
    assertTrue(r.exit() != 0, r.toString());
    Matcher m = TAKEN.matcher(r.err());
    assertTrue(m.find(), r.toString());
    assertTrue(r.err().contains("user_jobs = " + USER_JOBS), r.toString());
    return m.group(1);
  }

  private static void alicesQsub() {
    TestCluster.Result r = qsub(ALICE, "job.sh");
    assertEquals(0, r.exit(), r.toString());
  }

  /** Bob's own client: rounds of submissions of plain jobs and arrays, each as large as may be. */
  private static final class Flood implements Runnable {
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    int sent;
    long bytes;
    int taken;
    int refused;
    String lastRefusal = "";

    @Override
    public void run() {
      try {
        List<Request> round = round();
        for (int r = 0; r < ROUNDS; r++) {
          for (Response reply : RawClient.send(BOB, server.socket, round)) {
            if (reply.hasError()) {
              assertEquals(Error.Code.MAX_QUEUED, reply.getError().getCode(), reply.toString());
              refused++;
              lastRefusal = reply.getError().getMessage();
            } else {
              taken++;
            }
          }
          sent += round.size();
          bytes += round.stream().mapToLong(Request::getSerializedSize).sum();
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    }

    /** Large scripts, large environments, and now and then an array of 1,000 of the latter. */
    private static List<Request> round() {
      Random random = new Random(30);
      List<Attribute> environment = new ArrayList<>();
      for (int v = 0; v < 4; v++) {
        StringBuilder value = new StringBuilder("BIG" + v + "=");
        while (value.length() < VARIABLE) {
          value.append((char) ('a' + random.nextInt(26)));
        }
        environment.add(attr("Variable_List", value.toString()));
      }
      ByteString big = ByteString.copyFromUtf8("true\n" + "#".repeat(SCRIPT) + "\n");
      ByteString small = ByteString.copyFromUtf8("true\n");
      List<Request> requests = new ArrayList<>();
      for (int i = 0; i < PER_ROUND; i++) {
        SubmitJob.Builder s =
            SubmitJob.newBuilder()
                .addAttributes(attr("Variable_List", "PBS_O_WORKDIR=" + home))
                .setScript(i % 2 == 0 ? big : small);
        if (i % 2 == 1) {
          s.addAllAttributes(environment);
        }
        if (i % 10 == 9) {
          s.addAttributes(attr("job_array_request", "0-999"));
        }
        requests.add(Request.newBuilder().setSubmit(s).build());
      }
      return requests;
    }

    private static Attribute attr(String name, String value) {
      return Attribute.newBuilder().setName(name).setValue(value).build();
    }
  }
}
