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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Preemption on a live cluster with a mom: a job of the preemptor queue express requeues another
 * user's running job of batch (preempt_mode requeue) that holds every CPU, runs on its node, and
 * the requeued job runs again after it; or it suspends a job of queue scavenger (preempt_mode
 * suspend), whose processes the mom freezes in their cgroup and thaws once the preemptor's job has
 * ended; a suspended job deleted leaves no cgroup. The reasons are in tracejob. A user cannot make
 * a queue a preemptor or preemptable.
 */
@Tag("integration")
class PreemptionIT {
  static TestCluster cluster;
  static int cpus;
  static final List<String> submitted = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start();
    cpus = NodeFacts.linux().onlineCpus().size();
    qmgr("create queue express queue_type=e,preemptor=true,enabled=true,started=true");
    qmgr("set queue batch preempt_mode = requeue");
    qmgr("create queue scavenger queue_type=e,preempt_mode=suspend,enabled=true,started=true");
    qmgr("set server cgroup_enable = true"); // suspended jobs freeze in their cgroups
  }

  /** Deletes what a test left, so that the next one finds the node free. */
  @AfterEach
  void deleteLeftovers() {
    for (String id : submitted) {
      if (cluster.job(id).getState() != JobState.COMPLETED) {
        cluster.cli("qdel", id);
        cluster.awaitState(id, JobState.COMPLETED);
      }
    }
    submitted.clear();
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    works.removeAll();
  }

  /** Each user's directory for this class's scripts and output, removed after it. */
  private static final WorkDirs works = new WorkDirs("berth-preempt-");

  private static Path work(String user) throws IOException {
    return works.of(user);
  }

  private static void qmgr(String directive) {
    TestCluster.Result r = cluster.cli("qmgr", "-c", directive);
    assertEquals(0, r.exit(), "qmgr -c '" + directive + "': " + r);
  }

  private static String qsubAs(String user, String body, String... args) throws IOException {
    Path file = work(user).resolve("job-" + System.nanoTime() + ".pbs");
    Files.writeString(file, body);
    Files.setOwner(
        file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user));
    String[] argv = new String[args.length + 1];
    System.arraycopy(args, 0, argv, 0, args.length);
    argv[args.length] = file.toString();
    TestCluster.Result r = cluster.runAs(user, work(user), "qsub", argv);
    assertEquals(0, r.exit(), r.toString());
    submitted.add(r.out().trim());
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

  /** The freezer.state of the cgroup the job wrote to {@code where} (its /proc/self/cgroup). */
  private static Path freezerState(Path where) throws IOException {
    for (String line : Files.readAllLines(where)) {
      String[] parts = line.split(":", 3); // id:controllers:path
      if (parts.length == 3 && List.of(parts[1].split(",")).contains("freezer")) {
        return Path.of("/sys/fs/cgroup/freezer" + parts[2], "freezer.state");
      }
    }
    throw new AssertionError("no freezer cgroup in " + Files.readAllLines(where));
  }

  private static void awaitFile(Path file, String content) {
    MultiNodeCluster.awaitTrue(
        () -> {
          try {
            return Files.exists(file) && Files.readString(file).trim().equals(content);
          } catch (IOException gone) {
            return false;
          }
        },
        Duration.ofSeconds(60),
        () -> file + " does not read " + content);
  }

  /** A scavenger job on every CPU that says where its cgroups are, then runs until killed. */
  private static String scavenger(Path cgroups) throws IOException {
    Files.deleteIfExists(cgroups);
    String id =
        qsubAs(
            ALICE,
            "cat /proc/self/cgroup > "
                + cgroups
                + ".part && mv "
                + cgroups
                + ".part "
                + cgroups
                + "\nsleep 600\n",
            "-q",
            "scavenger",
            "-l",
            "nodes=1:ppn=" + cpus + ",walltime=00:20:00");
    cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () -> Files.exists(cgroups), Duration.ofSeconds(60), () -> "no " + cgroups);
    return id;
  }

  @Test
  void aPreemptorsJobSuspendsAJobThatIsFrozenUntilItHasEndedThenThawed() throws IOException {
    Path cgroups = work(ALICE).resolve("suspended.cgroup");
    String victim = scavenger(cgroups);
    Path state = freezerState(cgroups);
    assertEquals("THAWED", Files.readString(state).trim());

    Path release = work(BOB).resolve("release-urgent");
    Files.deleteIfExists(release);
    String urgent =
        qsubAs(
            BOB,
            "while [ ! -e " + release + " ]; do sleep 0.2; done\n",
            "-q",
            "express",
            "-l",
            "nodes=1:ppn=" + cpus + ",walltime=00:05:00");
    Job suspended = cluster.await(victim, j -> j.getSuspendedAt() > 0, Duration.ofSeconds(60));
    assertEquals(urgent, suspended.getSuspendedFor());
    awaitFile(state, "FROZEN");
    cluster.awaitState(urgent, JobState.RUNNING);
    assertTrue(
        cluster.cli("qstat", victim).out().contains(" S "),
        "qstat shows S: " + cluster.cli("qstat", victim));

    String nodes = cluster.cli("pbsnodes").out();
    assertTrue(nodes.contains(victim) && nodes.contains(urgent), "both on its CPUs: " + nodes);

    Files.writeString(release, "");
    assertEquals(0, cluster.awaitState(urgent, JobState.COMPLETED).getExitStatus());
    Job resumed = cluster.await(victim, j -> j.getSuspendedAt() == 0, Duration.ofSeconds(60));
    assertEquals(JobState.RUNNING, resumed.getState());
    assertTrue(resumed.getSuspendedSeconds() >= 0);
    awaitFile(state, "THAWED");
    String trace = cluster.cli("tracejob", victim).out();
    assertTrue(
        trace.contains(
            "Job suspended at request of scheduler: suspended: preempted by job " + urgent),
        trace);
    assertTrue(trace.contains("Job suspended on every node"), trace);
    assertTrue(trace.contains("Job resumed at request of scheduler"), trace);
    assertEquals(0, cluster.cli("qdel", victim).exit());
    cluster.awaitState(victim, JobState.COMPLETED);
  }

  @Test
  void aSuspendedJobDeletedEndsAndLeavesNoCgroup() throws IOException {
    Path cgroups = work(ALICE).resolve("deleted.cgroup");
    String victim = scavenger(cgroups);
    Path state = freezerState(cgroups);
    String urgent =
        qsubAs(
            BOB,
            "sleep 600\n",
            "-q",
            "express",
            "-l",
            "nodes=1:ppn=" + cpus + ",walltime=00:15:00");
    awaitFile(state, "FROZEN");
    cluster.awaitState(urgent, JobState.RUNNING);

    TestCluster.Result del = cluster.runAs(ALICE, work(ALICE), "qdel", victim);
    assertEquals(0, del.exit(), del.toString());
    Job ended = cluster.awaitState(victim, JobState.COMPLETED);
    assertNotEquals(0, ended.getExitStatus());
    MultiNodeCluster.awaitTrue(
        () -> !Files.exists(state.getParent()),
        Duration.ofSeconds(30),
        () -> state.getParent() + " is still there");
    assertEquals(0, cluster.cli("qdel", urgent).exit());
    cluster.awaitState(urgent, JobState.COMPLETED);
  }

  @Test
  void aUserCannotMakeAQueueAPreemptorOrPreemptable() throws IOException {
    for (String directive :
        List.of("set queue batch preemptor = true", "set queue express preempt_mode = suspend")) {
      TestCluster.Result r = cluster.runAs(ALICE, work(ALICE), "qmgr", "-c", directive);
      assertNotEquals(0, r.exit(), r.toString());
      assertTrue(r.err().contains("only managers may"), r.toString());
    }
  }
}
