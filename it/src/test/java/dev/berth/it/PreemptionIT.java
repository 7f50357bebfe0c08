package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.NodeFacts;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Preemption on a live cluster with a mom: a job of the preemptor queue express requeues another
 * user's running job of batch (preempt_mode requeue) that holds every CPU, runs on its node, and
 * the requeued job runs again after it; the reason is in tracejob. A user cannot make a queue a
 * preemptor.
 */
@Tag("integration")
class PreemptionIT {
  static TestCluster cluster;
  static int cpus;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start();
    cpus = NodeFacts.linux().onlineCpus().size();
    qmgr("create queue express queue_type=e,preemptor=true,enabled=true,started=true");
    qmgr("set queue batch preempt_mode = requeue");
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
  }

  private static void qmgr(String directive) {
    TestCluster.Result r = cluster.cli("qmgr", "-c", directive);
    assertEquals(0, r.exit(), "qmgr -c '" + directive + "': " + r);
  }

  private static String qsubAs(String user, String body, String... args) throws IOException {
    Path file = TestUsers.home(user).resolve("job-" + System.nanoTime() + ".pbs");
    Files.writeString(file, body);
    Files.setOwner(
        file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user));
    String[] argv = new String[args.length + 1];
    System.arraycopy(args, 0, argv, 0, args.length);
    argv[args.length] = file.toString();
    TestCluster.Result r = cluster.runAs(user, TestUsers.home(user), "qsub", argv);
    assertEquals(0, r.exit(), r.toString());
    return r.out().trim();
  }

  @Test
  void aPreemptorsJobRequeuesARunningJobAndItRunsAgainAfter() throws IOException {
    String whole = "nodes=1:ppn=" + cpus;
    String victim = qsubAs(ALICE, "sleep 300\n", "-l", whole + ",walltime=00:10:00");
    cluster.awaitState(victim, JobState.RUNNING);
    cluster.await(victim, j -> j.getStartTime() > 0, Duration.ofSeconds(60));

    String urgent =
        qsubAs(BOB, "echo urgent\n", "-q", "express", "-l", whole + ",walltime=00:01:00");
    // requeued, the urgent job runs, and the victim runs again, all within milliseconds: the
    // requeue shows in its run count and in tracejob, not in a state a poll would catch
    Job done = cluster.awaitState(urgent, JobState.COMPLETED);
    assertEquals(0, done.getExitStatus());

    Job again =
        cluster.await(
            victim,
            j -> j.getState() == JobState.RUNNING && j.getRunCount() == 2,
            Duration.ofSeconds(60));
    assertEquals(ALICE, again.getEuser());
    String trace = cluster.cli("tracejob", victim).out();
    assertTrue(trace.contains("preempted by job " + urgent + " of queue express"), trace);
    assertTrue(trace.contains("requeued: preempted by job " + urgent), trace);
    assertEquals(0, cluster.cli("qdel", victim).exit());
    cluster.awaitState(victim, JobState.COMPLETED);
  }

  @Test
  void aUserCannotMakeAQueueAPreemptor() {
    TestCluster.Result r =
        cluster.runAs(
            ALICE, TestUsers.home(ALICE), "qmgr", "-c", "set queue batch preemptor = true");
    assertNotEquals(0, r.exit(), r.toString());
    assertTrue(r.err().contains("only managers may"), r.toString());
  }
}
