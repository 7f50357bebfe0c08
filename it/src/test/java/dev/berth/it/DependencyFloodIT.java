package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.proto.Attribute;
import dev.berth.proto.JobState;
import dev.berth.proto.ReleaseJob;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitJob;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A dependency flood by an ordinary user costs other users nothing. berth-bob, through his own
 * client, submits TARGETS held jobs and WAITERS jobs that each wait on 1,000 of them (the most a
 * job may name), then lets some of his named jobs run and end, each end touching every waiter;
 * meanwhile berth-alice's qsub and her jobs' starts take about what they took before the flood.
 * Bob's qsub naming more than 1,000 jobs is refused, saying so. The sizes scale with {@code
 * -Dberth.flood.targets} and {@code -Dberth.flood.waiters} (the size: 5000 and 2000).
 */
// Alone: it bounds alice's slowest qsub and job start during the flood by her slowest before it
// plus two and five seconds, a margin a neighbour's changing load would use up.
@Alone
@Tag("integration")
class DependencyFloodIT {
  private static final int MAX_DEPENDENCIES = 1000; // the server's Dependencies.MAX_DEPENDENCIES
  private static final int TARGETS = Integer.getInteger("berth.flood.targets", 1000);
  private static final int WAITERS = Integer.getInteger("berth.flood.waiters", 200);
  private static final int BOBS_RUNS = 20;
  private static final int ALICES_JOBS = 10;
  private static final int BATCH = 500;
  private static final Duration START = Duration.ofSeconds(60);

  static TestCluster cluster;
  static Path aliceWork;
  static Path bobWork;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start();
    aliceWork = workDir(ALICE);
    bobWork = workDir(BOB);
    Files.writeString(aliceWork.resolve("quick.sh"), "true\n");
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    TestCluster.exec(Path.of("/"), List.of("rm", "-rf", aliceWork.toString(), bobWork.toString()));
  }

  private static Path workDir(String user) throws IOException {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "berth-flood-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    TestCluster.exec(Path.of("/"), List.of("chown", user, dir.toString()));
    return dir;
  }

  /** Alice's qsub and the time until her job started, each in milliseconds, ALICES_JOBS times. */
  private record Latencies(long[] qsub, long[] start) {
    static Latencies measure() {
      long[] qsub = new long[ALICES_JOBS];
      long[] start = new long[ALICES_JOBS];
      for (int i = 0; i < ALICES_JOBS; i++) {
        long begin = System.nanoTime();
        TestCluster.Result r = cluster.runAs(ALICE, aliceWork, "qsub", "quick.sh");
        long submitted = System.nanoTime();
        assertEquals(0, r.exit(), r.toString());
        cluster.await(r.out().strip(), j -> j.getStartTime() > 0, START);
        qsub[i] = (submitted - begin) / 1_000_000;
        start[i] = (System.nanoTime() - submitted) / 1_000_000;
      }
      return new Latencies(qsub, start);
    }

    static long median(long[] ms) {
      long[] sorted = ms.clone();
      Arrays.sort(sorted);
      return sorted[sorted.length / 2];
    }

    static long max(long[] ms) {
      return Arrays.stream(ms).max().orElseThrow();
    }

    String line() {
      return String.format(
          Locale.ROOT,
          "qsub median %d ms, max %d ms; start median %d ms, max %d ms",
          median(qsub),
          max(qsub),
          median(start),
          max(start));
    }
  }

  private static Attribute attr(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).build();
  }

  private static Request submit(Attribute... extra) {
    SubmitJob.Builder s =
        SubmitJob.newBuilder()
            .addAttributes(attr("Variable_List", "PBS_O_WORKDIR=" + bobWork))
            .addAttributes(attr("Join_Path", "oe"))
            .setScript(ByteString.copyFromUtf8("#!/bin/sh\ntrue\n"));
    for (Attribute a : extra) {
      s.addAttributes(a);
    }
    return Request.newBuilder().setSubmit(s).build();
  }

  /**
   * Sends {@code requests} as bob's own client, on one connection per {@link #BATCH} (the relay
   * writes them all before it reads a reply, and the server stops reading a client that leaves more
   * unread); returns the job ids of the replies.
   */
  private static List<String> asBob(List<Request> requests) throws IOException {
    List<String> ids = new ArrayList<>();
    for (int from = 0; from < requests.size(); from += BATCH) {
      List<Request> batch = requests.subList(from, Math.min(requests.size(), from + BATCH));
      for (Response r : RawClient.send(BOB, cluster.socket, batch)) {
        assertFalse(r.hasError(), r.toString());
        ids.add(r.getSubmitted().getJobId());
      }
    }
    return ids;
  }

  @Test
  void aDependencyFloodCostsAnotherUsersSubmissionsAndStartsNothing() throws IOException {
    Latencies before = Latencies.measure();
    long heapBefore = liveHeap();
    resetPeaks();

    long flooding = System.nanoTime();
    List<Request> held = new ArrayList<>();
    for (int i = 0; i < TARGETS; i++) {
      // behind alice's jobs when released, so that her starts wait for no CPU of his
      held.add(submit(attr("Hold_Types", "u"), attr("Priority", "-1024")));
    }
    List<String> targets = asBob(held);
    String depend =
        "afterok:" + String.join(":", targets.subList(0, Math.min(TARGETS, MAX_DEPENDENCIES)));
    List<Request> waiting = new ArrayList<>();
    for (int i = 0; i < WAITERS; i++) {
      waiting.add(submit(attr("depend", depend)));
    }
    List<String> waiters = asBob(waiting);
    long flooded = (System.nanoTime() - flooding) / 1_000_000;

    // bob's named jobs run and end while alice works: each change touches every waiter
    List<Request> releases = new ArrayList<>();
    for (String t : targets.subList(0, BOBS_RUNS)) {
      releases.add(
          Request.newBuilder()
              .setRelease(ReleaseJob.newBuilder().setJobId(t).setHoldTypes("u"))
              .build());
    }
    for (Response r : RawClient.send(BOB, cluster.socket, releases)) {
      assertFalse(r.hasError(), r.toString());
    }
    Latencies during = Latencies.measure();
    for (String t : targets.subList(0, BOBS_RUNS)) {
      cluster.awaitState(t, JobState.COMPLETED);
    }
    long heapAfter = liveHeap();
    System.out.printf(
        Locale.ROOT,
        "dependency flood (%d held jobs, %d jobs naming %d each, submitted in %d ms; %d of the"
            + " named jobs ran meanwhile): alice's %s before, %s during; heap peak %d MiB, live"
            + " %d MiB before and %d MiB after%n",
        TARGETS,
        WAITERS,
        Math.min(TARGETS, MAX_DEPENDENCIES),
        flooded,
        BOBS_RUNS,
        before.line(),
        during.line(),
        peak() >> 20,
        heapBefore >> 20,
        heapAfter >> 20);

    assertEquals(JobState.HELD, cluster.job(waiters.get(0)).getState(), "still waiting");
    assertTrue(
        Latencies.max(during.qsub()) < Latencies.max(before.qsub()) + 2000,
        "alice's qsub: " + during.line() + " (before: " + before.line() + ")");
    assertTrue(
        Latencies.max(during.start()) < Latencies.max(before.start()) + 5000,
        "alice's starts: " + during.line() + " (before: " + before.line() + ")");
  }

  @Test
  void aQsubNamingMoreThanTheMostAJobMayIsRefusedSayingSo() throws IOException {
    List<String> named = asBob(List.of(submit(attr("Hold_Types", "u"))));
    String many = ("afterok" + (":" + named.get(0)).repeat(MAX_DEPENDENCIES + 1));
    Files.writeString(bobWork.resolve("many.sh"), "true\n");
    TestCluster.Result r = cluster.runAs(BOB, bobWork, "qsub", "-W", "depend=" + many, "many.sh");
    assertTrue(r.exit() != 0, r.toString());
    assertTrue(
        r.err().contains("the dependencies name 1001 jobs; a job may name at most 1000"),
        r.toString());
    TestCluster.Result alices = cluster.runAs(ALICE, aliceWork, "qsub", "quick.sh");
    assertEquals(0, alices.exit(), "the server still takes alice's jobs: " + alices);
  }

  private static long liveHeap() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static List<MemoryPoolMXBean> heapPools() {
    return ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP)
        .toList();
  }

  private static void resetPeaks() {
    heapPools().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  /** The sum of the heap pools' peaks since {@link #resetPeaks}: an upper bound of the peak. */
  private static long peak() {
    return heapPools().stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
  }
}
