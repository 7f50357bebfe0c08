package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Administrators' reservations on a live cluster with a mom, through the commands as their users
 * run them: pbs_rsub, pbs_rstat and pbs_rdel as root, and as unprivileged users who try to make,
 * delete or use a reservation that is not theirs; a window that opens, runs its user's job on the
 * reserved node while another user's job waits outside it, and kills its job when it closes.
 */
@Tag("integration")
class ReservationIT {
  private static final Pattern CREATED = Pattern.compile("(R(\\d+)\\.\\S+) (CONFIRMED|RUNNING)\n");

  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start();
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    works.removeAll();
  }

  /** Each user's directory for this class's scripts and output, removed after it. */
  private static final WorkDirs works = new WorkDirs("berth-reservation-");

  private static Path work(String user) throws IOException {
    return works.of(user);
  }

  /** The id pbs_rsub printed. */
  private static String reserved(TestCluster.Result r) {
    assertEquals(0, r.exit(), r.toString());
    Matcher m = CREATED.matcher(r.out());
    assertTrue(m.matches(), r.toString());
    return m.group(1);
  }

  private static String queueOf(String id) {
    return id.substring(0, id.indexOf('.'));
  }

  private static Path script(String user, String name, String body) throws IOException {
    Path file = work(user).resolve(name);
    Files.writeString(file, body);
    Files.setOwner(
        file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user));
    return file;
  }

  private static String qsubAs(String user, String... args) throws IOException {
    TestCluster.Result r = cluster.runAs(user, work(user), "qsub", args);
    assertEquals(0, r.exit(), r.toString());
    return r.out().trim();
  }

  @Test
  void onlyOperatorsReserveAndOnlyTheNamedUsersUseIt() throws IOException {
    TestCluster.Result mine =
        cluster.runAs(ALICE, TestUsers.home(ALICE), "pbs_rsub", "-D", "600", "-l", "nodes=1");
    assertNotEquals(0, mine.exit(), mine.toString());
    assertTrue(mine.err().contains("may not make reservations"), mine.toString());

    String later =
        LocalDateTime.now().plusDays(2).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm"));
    String id =
        reserved(
            cluster.cli(
                "pbs_rsub",
                "-R",
                later,
                "-D",
                "1:00:00",
                "-N",
                "course",
                "-U",
                ALICE,
                "-l",
                "nodes=1"));
    String full = cluster.cli("pbs_rstat", "-f", id).out();
    assertTrue(full.contains("Reserve_Name = course"), full);
    assertTrue(full.contains("reserve_state = RESV_CONFIRMED"), full);
    assertTrue(full.contains("Authorized_Users = " + ALICE), full);
    assertTrue(full.contains("resv_nodes = " + cluster.node), full);
    TestCluster.Result listed = cluster.runAs(BOB, TestUsers.home(BOB), "pbs_rstat");
    assertTrue(listed.out().contains(id), "anyone may list reservations: " + listed);

    TestCluster.Result taken = cluster.runAs(BOB, TestUsers.home(BOB), "pbs_rdel", id);
    assertNotEquals(0, taken.exit(), taken.toString());
    assertTrue(taken.err().contains("may not delete reservation " + id), taken.toString());
    Path job = script(BOB, "intruder.pbs", "true\n");
    TestCluster.Result intruder =
        cluster.runAs(BOB, work(BOB), "qsub", "-q", queueOf(id), job.toString());
    assertNotEquals(0, intruder.exit(), intruder.toString());
    assertTrue(intruder.err().contains("acl_users"), intruder.toString());

    Path welcome = script(ALICE, "course.pbs", "true\n");
    String queued = qsubAs(ALICE, "-q", queueOf(id), welcome.toString());
    assertEquals(0, cluster.cli("pbs_rdel", id).exit());
    Job deleted = cluster.awaitState(queued, JobState.COMPLETED);
    assertEquals(
        "reservation " + id + " ended: deleted by root@" + cluster.node, deleted.getComment());
  }

  @Test
  void aWindowRunsItsJobsOnItsNodeKeepsOthersOutAndEndsThem() throws IOException {
    String id = reserved(cluster.cli("pbs_rsub", "-D", "20", "-U", ALICE, "-l", "nodes=1"));
    // the window's job may start no sooner than 8 s into it, so that its walltime (the window's
    // length) ends well after the window does, and the window is what ends it
    String notBefore =
        LocalDateTime.now().plusSeconds(8).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm.ss"));
    Path outside = script(BOB, "outside.pbs", "true\n");
    String waiting = qsubAs(BOB, "-l", "walltime=00:01:00", outside.toString());
    Job told =
        cluster.await(
            waiting,
            j ->
                j.getComment()
                    .startsWith("Not Running: not enough free resources; its start is reserved"),
            Duration.ofSeconds(30));
    assertEquals(
        JobState.QUEUED, told.getState(), "the only node is the reservation's while it lasts");

    Path inside = script(ALICE, "inside.pbs", "sleep 300\n");
    String running = qsubAs(ALICE, "-q", queueOf(id), "-a", notBefore, inside.toString());
    cluster.awaitState(running, JobState.RUNNING);
    assertEquals(JobState.QUEUED, cluster.job(waiting).getState());

    Job ended =
        cluster.await(running, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    assertEquals("reservation " + id + " ended: its window ended", ended.getComment());
    String trace = cluster.cli("tracejob", running).out();
    assertTrue(trace.contains("reservation " + id + " ended"), trace);
    cluster.awaitState(waiting, JobState.COMPLETED);
    assertEquals(
        0, cluster.job(waiting).getExitStatus(), "the other user's job ran once the window closed");
  }
}
