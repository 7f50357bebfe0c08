package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server failover on a real KRaft broker (started in this JVM from the Kafka jars): two server
 * processes on one journal topic, two moms, and the commands given both servers' sockets.
 */
@Tag("integration")
class FailoverIT {
  /** Secured as berth kafka start sets a broker up; the servers' and moms' homes get its CA. */
  @RegisterExtension static final TestBroker broker = TestBroker.secured("berth-failover-");

  /**
   * qsub calls in the test that kills the active server (after a quarter of them) and in the one
   * that restarts the broker (after a sixth): enough that the kill or the restart falls among
   * submissions in flight from every submitter, and that many follow the takeover; were 1,000 and
   * 600, which took most of this class's five minutes on a busy machine.
   */
  static final int KILL_SUBMISSIONS = 400;

  static final int BROKER_SUBMISSIONS = 300;

  private static FailoverCluster cluster(String name) throws Exception {
    return FailoverCluster.start(
        Files.createDirectories(broker.dir().resolve(name)),
        "kafka://" + broker.bootstrapServers() + "/berth-" + name,
        broker.authority());
  }

  /**
   * What the submitters saw: ids printed, failures, and when the first submission that started
   * after a mark (a kill, a restart) was acknowledged.
   */
  private static final class Submissions {
    final ConcurrentLinkedQueue<String> printed = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    final AtomicLong eventAt = new AtomicLong();
    final AtomicLong markedAt = new AtomicLong();
    final AtomicLong firstAfterMark = new AtomicLong();

    /** {@code event} (nanoTime) is when it happened; later submissions start after now. */
    void mark(long event) {
      eventAt.set(event);
      markedAt.set(System.nanoTime());
    }

    void record(long started, TestCluster.Result r) {
      if (r.exit() == 0) {
        printed.add(r.out().strip());
        if (markedAt.get() != 0 && started > markedAt.get()) {
          firstAfterMark.compareAndSet(0, System.nanoTime());
        }
      } else {
        failures.add(r.err().strip());
      }
    }

    double secondsToFirstAfterMark() {
      return (firstAfterMark.get() - eventAt.get()) / 1e9;
    }
  }

  /** {@code threads} submitters that share {@code total} qsub calls of held jobs. */
  private static List<Thread> submitters(
      FailoverCluster c, Path script, int threads, int total, Submissions s) {
    AtomicInteger attempts = new AtomicInteger();
    List<Thread> all = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t =
          new Thread(
              () -> {
                while (attempts.getAndIncrement() < total) {
                  long started = System.nanoTime();
                  s.record(started, c.qsub(script, "-h"));
                }
              });
      t.start();
      all.add(t);
    }
    return all;
  }

  private static void join(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(5));
      assertFalse(t.isAlive(), "a submitter is stuck");
    }
  }

  /** Every printed id exists on the active server, and no id was printed twice. */
  private static void assertEveryPrintedJobExistsOnce(Submissions s, Map<String, Job> jobs) {
    List<String> printed = List.copyOf(s.printed);
    Set<String> unique = new HashSet<>(printed);
    assertEquals(printed.size(), unique.size(), "an id was printed twice");
    List<String> missing = printed.stream().filter(id -> !jobs.containsKey(id)).toList();
    assertEquals(List.of(), missing, "acknowledged jobs the server does not have");
  }

  /** The README's promise for a takeover after SIGKILL of the active server. */
  static final double TAKEOVER_BOUND_SECONDS = 15;

  @Test
  void killingTheActiveServerDuringSubmissionsLosesNoAcknowledgedJob() throws Exception {
    try (FailoverCluster c = cluster("kill")) {
      String onM1 = c.submit("sleep 6\nexit 3\n", "-o", "/dev/null", "-j", "oe");
      String onM2 = c.submit("sleep 6\nexit 4\n", "-o", "/dev/null", "-j", "oe");
      c.awaitJob(onM1, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(30));
      c.awaitJob(onM2, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(30));

      Submissions s = new Submissions();
      List<Thread> threads = submitters(c, c.script("true\n"), 8, KILL_SUBMISSIONS, s);
      MultiNodeCluster.awaitTrue(
          () -> s.printed.size() >= KILL_SUBMISSIONS / 4, Duration.ofSeconds(60));
      long kill = System.nanoTime();
      c.first.kill9();
      s.mark(kill);
      join(threads);

      System.out.printf(
          "takeover: %.2f s from SIGKILL of the active server to the next acknowledged"
              + " submission; %d of %d submissions acknowledged, %d failed%n",
          s.secondsToFirstAfterMark(), s.printed.size(), KILL_SUBMISSIONS, s.failures.size());
      assertTrue(s.firstAfterMark.get() != 0, "no submission succeeded after the kill");
      // Measured at 7-8 s (docs/benchmarks.md); the bound leaves room for a machine busy with
      // other test classes, and still fails a takeover that waits for a timeout it should not.
      assertTrue(
          s.secondsToFirstAfterMark() < TAKEOVER_BOUND_SECONDS,
          "takeover took " + s.secondsToFirstAfterMark() + " s");
      // A qsub whose reply was lost asks the new server again with the same submission id.
      assertEquals(List.of(), List.copyOf(s.failures));
      assertEquals(KILL_SUBMISSIONS, s.printed.size());

      Map<String, Job> jobs = c.jobs();
      assertEveryPrintedJobExistsOnce(s, jobs);
      assertEquals(KILL_SUBMISSIONS + 2, jobs.size(), "no submission made two jobs");
      for (String id : List.of(onM1, onM2)) {
        Job done = c.awaitJob(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
        assertEquals(id.equals(onM1) ? 3 : 4, done.getExitStatus(), done.toString());
        assertEquals(1, done.getRunCount(), "started once: " + done);
      }
      assertTrue(
          c.second.log().contains("active: took over the journal"), "the second server took over");
    }
  }

  @Test
  void aPausedActiveServerIsFencedWhenItComesBack() throws Exception {
    try (FailoverCluster c = cluster("pause")) {
      String before = c.submit("true\n", "-h");
      c.first.signal("STOP");
      long stopped = System.nanoTime();
      MultiNodeCluster.awaitTrue(c.second::answers, Duration.ofSeconds(60), c.second::log);
      System.out.printf("takeover after SIGSTOP: %.2f s%n", (System.nanoTime() - stopped) / 1e9);
      String during = submitTo(c.second.socket, c);

      // A command that reaches the paused server waits in its socket's backlog until SIGCONT.
      TestCluster.Result[] toPaused = new TestCluster.Result[1];
      Path script = c.script("true\n");
      Thread t =
          new Thread(
              () ->
                  toPaused[0] =
                      TestCluster.runCli(
                          TestCluster.clientEnv(c.first.socket),
                          c.work,
                          "",
                          "qsub",
                          "-h",
                          "-N",
                          "zombie",
                          script.toString()));
      t.start();
      TestCluster.sleep(1000);
      c.first.signal("CONT");
      long continued = System.nanoTime();
      t.join(60_000);
      assertNotEquals(0, toPaused[0].exit(), "the paused server acknowledged: " + toPaused[0]);
      assertNotEquals(0, c.first.waitForExit(), "the paused server stepped down");
      System.out.printf(
          "the paused server exited %.2f s after SIGCONT%n", (System.nanoTime() - continued) / 1e9);
      // out of the cluster, it exits without waiting for the rest of its actor system (whose
      // transport may wait for the members that quarantined it) and so well before its deadline
      assertFalse(c.first.log().contains("still stopping"), c.first.log());
      // Which comes first after SIGCONT is a race: the waiting qsub reaching the journal, whose
      // write the broker fences, or the cluster's verdict (the others quarantined the paused
      // member, and it downs itself). Either stops it; the fence itself is KafkaJournalIT's.
      String log = c.first.log();
      assertTrue(
          log.contains("this server's writes are fenced")
              || (log.contains("DownSelfQuarantinedByRemote") && log.contains("including myself")),
          "its write was fenced, or it was downed before it wrote: " + log);

      Map<String, Job> jobs = c.jobs();
      assertTrue(jobs.containsKey(before) && jobs.containsKey(during), jobs.keySet().toString());
      assertFalse(
          jobs.values().stream().anyMatch(j -> j.getName().equals("zombie")),
          "the paused server's write never shows");

      // Replay equals live state: the first server, started again on its own old copy, stands by
      // and catches up from the topic; then it takes over and must show what the second showed.
      String live = describe(jobs);
      // started again with the same command line, as its supervisor would
      assertTrue(c.first.startStandby(), c.first.log());
      c.second.stop();
      MultiNodeCluster.awaitTrue(c.first::answers, Duration.ofSeconds(60), c.first::log);
      assertEquals(live, describe(c.jobs()));
    }
  }

  private static String submitTo(Path socket, FailoverCluster c) throws Exception {
    TestCluster.Result r =
        TestCluster.runCli(
            TestCluster.clientEnv(socket), c.work, "", "qsub", "-h", c.script("true\n").toString());
    assertEquals(0, r.exit(), r.toString());
    return r.out().strip();
  }

  /** Every job as the server reports it, every attribute (all are held, so nothing moves). */
  private static String describe(Map<String, Job> jobs) {
    return jobs.values().stream()
        .sorted(java.util.Comparator.comparing(Job::getId))
        .map(Job::toString)
        .collect(Collectors.joining("\n"));
  }

  @Test
  void aBrokerRestartDuringSubmissionsLosesNoAcknowledgedJob() throws Exception {
    try (FailoverCluster c = cluster("broker")) {
      Submissions s = new Submissions();
      List<Thread> threads = submitters(c, c.script("true\n"), 4, BROKER_SUBMISSIONS, s);
      MultiNodeCluster.awaitTrue(
          () -> s.printed.size() >= BROKER_SUBMISSIONS / 6, Duration.ofSeconds(60));
      broker.stop();
      TestCluster.sleep(3000);
      long restart = System.nanoTime();
      broker.start();
      s.mark(restart);
      join(threads);
      System.out.printf(
          "broker restart: %d of %d submissions acknowledged, %d failed; the first one started"
              + " after the restart acknowledged %.2f s after it began%n",
          s.printed.size(), BROKER_SUBMISSIONS, s.failures.size(), s.secondsToFirstAfterMark());
      Map<String, Job> jobs = c.jobs();
      assertEveryPrintedJobExistsOnce(s, jobs);
      assertTrue(s.firstAfterMark.get() != 0, "nothing was acknowledged after the restart");
      assertEquals(s.printed.size(), jobs.size(), "every job there was acknowledged");
    }
  }
}
