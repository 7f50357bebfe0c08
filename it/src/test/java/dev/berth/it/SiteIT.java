package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.BerthClient;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.StatJobs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A site of separate hosts (network, UTS and, for the login hosts, mount namespaces of their own):
 * a broker host, two server hosts (active and standby on its journal), a login host with a relay
 * and two compute hosts with moms and cgroups. Users work on the login host as on a server host:
 * the commands find the relay's socket where they look by default, and the relay speaks for them to
 * whichever server is active.
 */
@Tag("integration")
@Timeout(600)
class SiteIT {
  private static final String ALICE = TestUsers.ALICE;
  private static final String BOB = TestUsers.BOB;

  static Site site;
  static VirtualHosts.Host login;
  static VirtualHosts.Host stranger;
  static Path shared;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(ALICE, BOB);
    JobTools.ensureOnPath();
    site = Site.create();
    shared = MultiNodeCluster.workFor(ALICE, "berth-site-work-");
    site.startKafka();
    site.startServers("head1", "head2");
    site.rootCli("qmgr", "-c", "set server submit_hosts = login1");
    site.rootCli("qmgr", "-c", "set server cgroup_enable = True");
    login = site.startLogin("login1");
    stranger = site.startLogin("login2");
    site.startCompute("compute1", "0");
    site.startCompute("compute2", "1");
  }

  @AfterAll
  static void stop() throws Exception {
    if (site != null) {
      site.close();
    }
    if (shared != null) {
      dev.berth.mom.os.JobFiles.removeTree(shared);
    }
  }

  /**
   * The acceptance walk: an MPI job over both compute hosts submitted, watched and traced from the
   * login host; the active server killed while it runs, which the user sees only as a short wait; a
   * second job deleted from the login host, leaving nothing on either compute host.
   */
  @Test
  void aUserOnTheLoginHostRunsAnMpiJobOverBothComputeHostsThroughAServerTakeover()
      throws Exception {
    Path release = shared.resolve("release");
    Path script = shared.resolve("mpi.sh");
    Files.writeString(
        script,
        "mpirun --hostfile $PBS_NODEFILE hostname\n"
            + "while [ ! -e "
            + release
            + " ]; do sleep 0.2; done\n"
            + "echo after the takeover on $(hostname)\n");
    String id =
        site.ok(
                login,
                ALICE,
                shared,
                "qsub",
                "-N",
                "mpi",
                "-j",
                "oe",
                "-l",
                "nodes=2:ppn=1",
                script.toString())
            .strip();
    assertTrue(id.endsWith("." + Site.SERVER_NAME), id);
    Job running = await(id, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () -> output(running).contains("compute2"), Duration.ofSeconds(60), () -> output(running));

    String qstat = site.ok(login, ALICE, shared, "qstat", id);
    assertTrue(qstat.contains(" R "), qstat);
    String full = site.ok(login, ALICE, shared, "qstat", "-f", id);
    assertTrue(full.contains("Job_Owner = " + ALICE + "@login1"), full);
    assertTrue(full.contains("submit_host = login1"), full);
    assertTrue(full.contains("exec_host = compute1/0+compute2/1"), full); // CPU ids
    assertTrue(full.contains("Output_Path = login1:" + shared.resolve("mpi.o")), full);
    String trace = site.ok(login, ALICE, shared, "tracejob", id);
    assertTrue(trace.contains("Job Run at request of"), trace);

    printCommandTimes(id);

    site.kill("head1"); // the active server, while the job runs
    long t0 = System.nanoTime();
    String after = site.ok(login, ALICE, shared, "qstat", id);
    System.out.printf(
        "SiteIT: the first qstat from the login host after SIGKILL of the active server took"
            + " %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    assertTrue(after.contains(" R "), after);

    Files.writeString(release, "");
    Job done = await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    assertEquals(0, done.getExitStatus(), site.logs());
    assertEquals(1, done.getRunCount());
    String out = output(done);
    assertTrue(out.contains("compute1\n") && out.contains("compute2\n"), out);
    assertTrue(out.contains("after the takeover on compute1"), out);
    String finished = site.ok(login, ALICE, shared, "qstat", "-f", id);
    assertTrue(finished.contains("job_state = C"), finished);

    Path sleeper = shared.resolve("sleeper.sh");
    Files.writeString(sleeper, "pbsdsh sleep 3107\n");
    String second =
        site.ok(login, ALICE, shared, "qsub", "-l", "nodes=2:ppn=1", sleeper.toString()).strip();
    await(second, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () -> Processes.running("sleep", "3107").size() == 2, Duration.ofSeconds(30));
    site.ok(login, ALICE, shared, "qdel", second);
    await(second, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () -> Processes.running("sleep", "3107").isEmpty() && !hasCgroups(second),
        Duration.ofSeconds(10),
        () -> Processes.running("sleep", "3107") + " " + cgroups());
  }

  @Test
  void aLoginHostTheServerDoesNotListIsRefusedWithTheReason() {
    TestCluster.Result r = site.as(stranger, ALICE, shared, "qstat");
    assertNotEquals(0, r.exit(), r.toString());
    assertTrue(
        r.err()
            .contains(
                "access from host login2 not allowed: it is not in the server's" + " submit_hosts"),
        r.toString());
    Path script = shared.resolve("refused.sh");
    TestCluster.Result q = site.as(stranger, ALICE, shared, "qsub", "/dev/null");
    assertNotEquals(0, q.exit(), q.toString());
    assertTrue(q.err().contains("access from host login2 not allowed"), q.toString());
    assertFalse(Files.exists(script));
  }

  /**
   * A relay speaks for the users of its own host and nobody else: root there is not root of the
   * servers (no manager, no acl_roots entry of a server host), and a job it submits belongs to
   * user@login1 whatever qsub claims.
   */
  @Test
  void aRelayActsOnlyForUsersOfItsOwnHost() {
    site.rootCli("qmgr", "-c", "set server acl_roots = root@head1");
    TestCluster.Result manage =
        site.as(login, "root", shared, "qmgr", "-c", "set server query_other_jobs = True");
    assertNotEquals(0, manage.exit(), manage.toString());
    assertTrue(
        manage.err().contains("root@login1 may not change server attributes"), manage.toString());
    TestCluster.Result rootJob = site.as(login, "root", shared, "qsub", "/dev/null");
    assertNotEquals(0, rootJob.exit(), rootJob.toString());
    assertTrue(rootJob.err().contains("root user root@login1 not allowed"), rootJob.toString());
  }

  /**
   * An ordinary user of the login host can neither use the relay's credential nor do without it.
   */
  @Test
  void aUserOfTheLoginHostCannotReachTheServerPastTheRelay() {
    Path key = site.dir.resolve("home-login1/credentials/submit-login1/key.pem");
    TestCluster.Result read = site.as(login, BOB, Path.of("/tmp"), "qstat"); // bob as bob
    assertEquals(0, read.exit(), read.toString());
    TestCluster.Result steal =
        TestCluster.exec(
            Path.of("/"),
            login.command(List.of("runuser", "-u", BOB, "--", "cat", key.toString())));
    assertNotEquals(0, steal.exit(), "bob read the relay's key: " + steal);
    TestCluster.Result handshake =
        TestCluster.exec(
            Path.of("/"),
            login.command(
                List.of(
                    "runuser",
                    "-u",
                    BOB,
                    "--",
                    "sh",
                    "-c",
                    "echo | openssl s_client -quiet -tls1_3 -connect "
                        + site.server(1).address()
                        + ":"
                        + Site.RELAY_PORT
                        + " 2>&1; echo exit=$?")));
    assertTrue(
        handshake.out().contains("certificate required") || handshake.out().contains("alert"),
        handshake.toString());
  }

  // -- helpers

  private static String output(Job job) {
    return MultiNodeCluster.output(job);
  }

  /**
   * What a user waits for qsub and qstat on the login host (through the relay) and on the active
   * server's host (its socket), median of five calls each; printed for the record, not asserted.
   */
  private static void printCommandTimes(String id) throws IOException {
    Path empty = shared.resolve("empty.sh");
    Files.writeString(empty, "true\n");
    long[] login = new long[2];
    long[] server = new long[2];
    List<String> held = new java.util.ArrayList<>();
    login[0] =
        median(
            () -> keep(held, site.ok(SiteIT.login, ALICE, shared, "qsub", "-h", empty.toString())));
    server[0] =
        median(
            () ->
                keep(
                    held,
                    succeed(site.onServerHost(ALICE, shared, "qsub", "-h", empty.toString()))));
    login[1] = median(() -> site.ok(SiteIT.login, ALICE, shared, "qstat", id));
    server[1] = median(() -> succeed(site.onServerHost(ALICE, shared, "qstat", id)));
    System.out.printf(
        "SiteIT: median wall time of 5 calls as %s: qsub %d ms on the login host, %d ms on the"
            + " server host; qstat %d ms on the login host, %d ms on the server host%n",
        ALICE, login[0], server[0], login[1], server[1]);
    for (String h : held) {
      site.ok(SiteIT.login, ALICE, shared, "qdel", h);
    }
  }

  private static String keep(List<String> ids, String qsubOutput) {
    ids.add(qsubOutput.strip());
    return qsubOutput;
  }

  private static String succeed(TestCluster.Result r) {
    assertEquals(0, r.exit(), r.toString());
    return r.out();
  }

  private static long median(java.util.function.Supplier<String> call) {
    long[] millis = new long[5];
    for (int i = 0; i < millis.length; i++) {
      long t0 = System.nanoTime();
      call.get();
      millis[i] = (System.nanoTime() - t0) / 1_000_000;
    }
    java.util.Arrays.sort(millis);
    return millis[2];
  }

  private static Job await(String id, Predicate<Job> condition, Duration timeout) {
    Job[] last = {null};
    MultiNodeCluster.awaitTrue(
        () -> {
          last[0] = job(id);
          return last[0] != null && condition.test(last[0]);
        },
        timeout,
        () -> "job " + id + ": " + last[0] + "\n" + site.logs());
    return last[0];
  }

  /** The job as the active server has it (null if none answers now). */
  private static Job job(String id) {
    try (BerthClient c =
        BerthClient.connect(site.serverSockets(), Duration.ofSeconds(30), Duration.ofSeconds(30))) {
      var r = c.call(Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(id)));
      return r.hasJobs() && r.getJobs().getJobsCount() == 1 ? r.getJobs().getJobs(0) : null;
    } catch (Exception e) {
      return null;
    }
  }

  private static boolean hasCgroups(String id) {
    try {
      return Cgroups.below(site.cgroupRoot).stream()
          .anyMatch(p -> p.getFileName().toString().equals(id));
    } catch (IOException e) {
      return true;
    }
  }

  private static String cgroups() {
    try {
      return Cgroups.below(site.cgroupRoot).toString();
    } catch (IOException e) {
      return e.toString();
    }
  }
}
