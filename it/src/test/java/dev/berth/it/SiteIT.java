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
 * A site of separate hosts (network, UTS and mount namespaces of their own, {@link VirtualHosts}):
 * a broker host, two server hosts (active and standby on its journal), a login host the servers
 * admit and one they do not, each with a relay, and two compute hosts with moms and cgroups, every
 * daemon started as its systemd unit starts it. Users work on the login host as on a server host:
 * the commands find the relay's socket where they look by default, the relay speaks for them to
 * whichever server is active, and their jobs' output comes back to their directory there, which no
 * other host sees.
 */
@Tag("integration")
@Timeout(600)
class SiteIT {
  private static final String ALICE = TestUsers.ALICE;
  private static final String BOB = TestUsers.BOB;

  static Site site;
  static VirtualHosts.Host login;
  static VirtualHosts.Host stranger;

  /** A directory every host sees (the site's shared file system), alice's. */
  static Path shared;

  /** Alice's directory on the login host, which no other host sees. */
  static Path desk;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(ALICE, BOB);
    JobTools.ensureOnPath();
    site = Site.create();
    shared = MultiNodeCluster.workFor(ALICE, "berth-site-work-");
    desk = site.dir.resolve("desk");
    site.startKafka();
    site.startServers("head1", "head2");
    site.rootCli("qmgr", "-c", "set server submit_hosts = login1");
    site.rootCli("qmgr", "-c", "set server cgroup_enable = True");
    login = site.startLogin("login1", desk);
    site.net.exec(login, "chown", ALICE, desk.toString());
    stranger = site.startLogin("login2");
    String usecp = "login*:" + shared; // the shared file system, as a site declares it
    site.startCompute("compute1", "0", "--usecp", usecp);
    site.startCompute("compute2", "1", "--usecp", usecp);
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
   * The acceptance walk: an MPI job over both compute hosts submitted from alice's own directory on
   * the login host, watched and traced from there; the active server killed while it runs, which
   * she sees only as a short wait; its output and error files delivered to her directory on the
   * login host, hers; a second job deleted from the login host, leaving nothing on either compute
   * host.
   */
  @Test
  void aUserOnTheLoginHostRunsAnMpiJobOverBothComputeHostsThroughAServerTakeover()
      throws Exception {
    Path release = shared.resolve("release");
    Path ranks = shared.resolve("ranks");
    Path script = shared.resolve("mpi.sh");
    Files.writeString(
        script,
        "mpirun --hostfile $PBS_NODEFILE hostname | tee "
            + ranks
            + "\nwhile [ ! -e "
            + release
            + " ]; do sleep 0.2; done\n"
            + "echo after the takeover on $(hostname)\n"
            + "echo to stderr >&2\n");
    String id =
        site.ok(login, ALICE, desk, "qsub", "-N", "mpi", "-l", "nodes=2:ppn=1", script.toString())
            .strip();
    assertTrue(id.endsWith("." + Site.SERVER_NAME), id);
    await(id, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(60));
    // mpirun prints the ranks' host names in whatever order they answer, a line at a time
    MultiNodeCluster.awaitTrue(
        () -> read(ranks).contains("compute1") && read(ranks).contains("compute2"),
        Duration.ofSeconds(60),
        () -> read(ranks));

    String qstat = site.ok(login, ALICE, desk, "qstat", id);
    assertTrue(qstat.contains(" R "), qstat);
    String full = site.ok(login, ALICE, desk, "qstat", "-f", id);
    assertTrue(full.contains("Job_Owner = " + ALICE + "@login1"), full);
    assertTrue(full.contains("submit_host = login1"), full);
    assertTrue(full.contains("exec_host = compute1/0+compute2/1"), full); // CPU ids
    assertTrue(full.contains("Output_Path = login1:" + desk.resolve("mpi.o")), full);
    assertTrue(full.contains("PBS_O_HOST=login1"), full);
    String trace = site.ok(login, ALICE, desk, "tracejob", id);
    assertTrue(trace.contains("Job Run at request of"), trace);

    printCommandTimes(id);

    site.kill("head1"); // the active server, while the job runs
    long t0 = System.nanoTime();
    String after = site.ok(login, ALICE, desk, "qstat", id);
    System.out.printf(
        "SiteIT: the first qstat from the login host after SIGKILL of the active server took"
            + " %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    assertTrue(after.contains(" R "), after);

    Files.writeString(release, "");
    Job done = await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    assertEquals(0, done.getExitStatus(), site.logs());
    assertEquals(1, done.getRunCount());
    assertEquals("", done.getComment());
    String number = id.substring(0, id.indexOf('.'));
    Path out = desk.resolve("mpi.o" + number);
    Path err = desk.resolve("mpi.e" + number);
    String delivered = site.net.exec(login, "cat", out.toString()).out();
    assertTrue(delivered.contains("compute1\n") && delivered.contains("compute2\n"), delivered);
    assertTrue(delivered.contains("after the takeover on compute1"), delivered);
    assertEquals("to stderr\n", site.net.exec(login, "cat", err.toString()).out());
    assertEquals(
        ALICE + "\n" + ALICE + "\n",
        site.net.exec(login, "stat", "-c", "%U", out.toString(), err.toString()).out());
    assertFalse(Files.exists(out), "the output is on the login host only");
    String finished = site.ok(login, ALICE, desk, "qstat", "-f", id);
    assertTrue(finished.contains("job_state = C"), finished);

    Path sleeper = shared.resolve("sleeper.sh");
    Files.writeString(sleeper, "pbsdsh sleep 3107\n");
    String second =
        site.ok(login, ALICE, desk, "qsub", "-l", "nodes=2:ppn=1", sleeper.toString()).strip();
    await(second, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () -> Processes.running("sleep", "3107").size() == 2, Duration.ofSeconds(30));
    site.ok(login, ALICE, desk, "qdel", second);
    await(second, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () ->
            Processes.running("sleep", "3107").isEmpty()
                && !hasCgroups(second)
                && site.jobFiles(second).isEmpty(),
        Duration.ofSeconds(10),
        () -> Processes.running("sleep", "3107") + " " + cgroups() + site.jobFiles(second));
  }

  /** 100 MB of output go to the login host as the job ends; prints how long the delivery took. */
  @Test
  void aLargeOutputFileArrivesWholeOnTheLoginHost() throws Exception {
    Path script = shared.resolve("large.sh");
    Files.writeString(script, "head -c 104857600 /dev/urandom\n");
    String id = site.ok(login, ALICE, desk, "qsub", "-N", "large", script.toString()).strip();
    Job done = await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(120));
    assertEquals(0, done.getExitStatus(), done.toString());
    String number = id.substring(0, id.indexOf('.'));
    Path out = desk.resolve("large.o" + number);
    assertEquals(
        "104857600 " + ALICE + "\n",
        site.net.exec(login, "stat", "-c", "%s %U", out.toString()).out());
    String log = site.daemon(done.getExecNodes(0).getNode()).log();
    String line =
        log.lines()
            .filter(l -> l.contains("job " + id + ": delivered stdout"))
            .findFirst()
            .orElse("(no delivery line in the mom's log)");
    System.out.println("SiteIT: 100 MB of output: " + line);
  }

  /**
   * Output for a host that cannot be reached stays on the execution host, where its owner can read
   * it, and the job's comment and tracejob say where; output kept with -k stays in the owner's home
   * there; output on a file system the site shares is written in place.
   */
  @Test
  void outputThatCannotGoWhereItShouldIsKeptAndSaysWhere() throws Exception {
    Path script = shared.resolve("talk.sh");
    Files.writeString(script, "echo to stdout; echo to stderr >&2\n");
    String lost =
        site.ok(
                login,
                ALICE,
                desk,
                "qsub",
                "-N",
                "lost",
                "-o",
                "nowhere9:/tmp/lost.out",
                "-e",
                "nowhere9:/tmp/lost.err",
                script.toString())
            .strip();
    String kept =
        site.ok(login, ALICE, desk, "qsub", "-N", "kept", "-k", "oe", script.toString()).strip();
    String inPlace =
        site.ok(
                login,
                ALICE,
                desk,
                "qsub",
                "-N",
                "inplace",
                "-o",
                "login1:" + shared.resolve("inplace.out"),
                "-j",
                "oe",
                script.toString())
            .strip();

    Job l = await(lost, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    String node = l.getExecNodes(0).getNode();
    assertEquals(0, l.getExitStatus(), l.toString());
    assertTrue(l.getComment().startsWith("output kept on " + node + " in /"), l.getComment());
    assertTrue(l.getComment().contains("stdout for nowhere9"), l.getComment());
    Path undelivered =
        Path.of(
            l.getComment().substring(("output kept on " + node + " in ").length()).split(" ")[0]);
    assertEquals("to stdout\n", Files.readString(undelivered.resolve("lost.o" + number(lost))));
    assertEquals("to stderr\n", Files.readString(undelivered.resolve("lost.e" + number(lost))));
    assertEquals(ALICE, Files.getOwner(undelivered).getName());
    String trace = site.ok(login, ALICE, desk, "tracejob", lost);
    assertTrue(trace.contains("Post job file processing error: output kept on " + node), trace);

    await(kept, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    Path home = TestUsers.home(ALICE);
    assertEquals("to stdout\n", Files.readString(home.resolve("kept.o" + number(kept))));
    assertEquals("to stderr\n", Files.readString(home.resolve("kept.e" + number(kept))));
    Files.delete(home.resolve("kept.o" + number(kept)));
    Files.delete(home.resolve("kept.e" + number(kept)));
    assertFalse(
        site.net.exec(login, "ls", desk.toString()).out().contains("kept."), "nothing delivered");

    Job p = await(inPlace, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    assertEquals("", p.getComment());
    assertEquals("to stdout\nto stderr\n", Files.readString(shared.resolve("inplace.out")));
    assertFalse(
        site.daemon(p.getExecNodes(0).getNode()).log().contains("job " + inPlace + ": delivered"),
        "written in place, not delivered");
  }

  /**
   * Every command a user has works on the login host as on a server host, and through a relay that
   * systemd restarted after it was killed.
   */
  @Test
  void everyCommandWorksFromTheLoginHostAndThroughARestartedRelay() throws Exception {
    Path script = shared.resolve("signalled.sh");
    Files.writeString(script, "sleep 3109\n");
    String id =
        site.ok(login, ALICE, desk, "qsub", "-h", "-N", "waiting", script.toString()).strip();
    site.ok(login, ALICE, desk, "qalter", "-N", "renamed", id);
    assertTrue(site.ok(login, ALICE, desk, "qstat", "-f", id).contains("Job_Name = renamed"));
    site.ok(login, ALICE, desk, "qhold", id);
    assertTrue(site.ok(login, ALICE, desk, "qstat", id).contains(" H "));

    site.restart("login1", "berth: relay for submit host login1");

    site.ok(login, ALICE, desk, "qrls", id);
    await(id, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(60));
    MultiNodeCluster.awaitTrue(
        () -> Processes.running("sleep", "3109").size() == 1, Duration.ofSeconds(30));
    site.ok(login, ALICE, desk, "qsig", "-s", "TERM", id);
    Job done = await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    assertEquals(256 + 15, done.getExitStatus(), done.toString());
    String nodes = site.ok(login, ALICE, desk, "pbsnodes", "-a");
    assertTrue(nodes.contains("compute1\n") && nodes.contains("compute2\n"), nodes);
    String server = site.ok(login, ALICE, desk, "qmgr", "-c", "list server");
    assertTrue(server.contains("submit_hosts = login1"), server);
    assertTrue(site.ok(login, ALICE, desk, "tracejob", id).contains("Exit_status=271"));
  }

  /**
   * qsub -I from the login host: submitted through the relay, its session on a compute node's
   * terminal port, which the login host reaches and whose certificate qsub checks.
   */
  @Test
  void anInteractiveJobFromTheLoginHost() {
    TestCluster.Result r =
        site.as(
            login,
            ALICE,
            desk,
            "qsub",
            "-I",
            "-x",
            "echo \"on-$(hostname)-$PBS_ENVIRONMENT-$(id -un)\"; exit 4");
    assertEquals(4, r.exit(), r.toString());
    assertTrue(
        r.out().matches("(?s).*on-compute[12]-PBS_INTERACTIVE-" + ALICE + "\\R.*"), r.toString());
  }

  /**
   * A compute node someone has taken over (its mom's credential in hand) cannot put a file on the
   * login host as a user: the relay asks the server, which grants a job's output only to its mother
   * superior; an ordinary user of a compute node has no credential to try with at all.
   */
  @Test
  void aComputeNodeCannotDeliverOutputForAJobItDoesNotRun() throws Exception {
    Path script = shared.resolve("victim.sh");
    Files.writeString(script, "sleep 3113\n");
    String id = site.ok(login, ALICE, desk, "qsub", "-N", "victim", script.toString()).strip();
    Job running = await(id, j -> j.getState() == JobState.RUNNING, Duration.ofSeconds(60));
    String ms = running.getExecNodes(0).getNode();
    String intruder = ms.equals("compute1") ? "compute2" : "compute1";
    VirtualHosts.Host from = site.host(intruder);
    Path credential = site.dir.resolve("home-" + intruder + "/credentials/mom-" + intruder);
    // OutputDelivery{job_id, stream "o"}, then OutputChunk{data "forged", last}, as frames.
    String frames =
        frame("0a" + hex(id.length()) + hexOf(id) + "1201" + hexOf("o"))
            + frame("0a06" + hexOf("forged") + "1001");
    TestCluster.Result attack =
        site.net.exec(
            from,
            "sh",
            "-c",
            "printf '"
                + octal(frames)
                + "' | timeout 30 openssl s_client -quiet -tls1_3 -connect login1:"
                + 15005
                + " -cert "
                + credential.resolve("cert.pem")
                + " -key "
                + credential.resolve("key.pem")
                + " -CAfile "
                + credential.resolve("ca.pem")
                + " 2>/dev/null; true");
    assertTrue(
        attack.out().contains("node " + intruder + " is not the mother superior of job " + id),
        attack.toString());
    assertFalse(
        site.net.exec(login, "ls", desk.toString()).out().contains("victim.o"),
        "nothing was written for the forger");

    assertUnreadableBy(BOB, from, credential.resolve("key.pem"));
    assertNoSessionWithoutACredential(BOB, from, "login1:15005");

    site.ok(login, ALICE, desk, "qdel", id);
    await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
  }

  /** A length-delimited frame of the message whose bytes {@code hex} holds (under 128 bytes). */
  private static String frame(String hex) {
    return hex(hex.length() / 2) + hex;
  }

  /** {@code hex} as printf's octal escapes (sh's printf has no \\x). */
  private static String octal(String hex) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < hex.length(); i += 2) {
      b.append(String.format("\\%03o", Integer.parseInt(hex.substring(i, i + 2), 16)));
    }
    return b.toString();
  }

  private static String hex(int n) {
    return String.format("%02x", n);
  }

  private static String hexOf(String s) {
    StringBuilder b = new StringBuilder();
    for (byte c : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      b.append(String.format("%02x", c));
    }
    return b.toString();
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
    TestCluster.Result q = site.as(stranger, ALICE, shared, "qsub", "/dev/null");
    assertNotEquals(0, q.exit(), q.toString());
    assertTrue(q.err().contains("access from host login2 not allowed"), q.toString());
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
    assertUnreadableBy(BOB, login, key);
    assertNoSessionWithoutACredential(BOB, login, site.server(1).address() + ":" + Site.RELAY_PORT);
  }

  // -- helpers

  /** {@code user} of {@code host} cannot read {@code key} (a daemon's credential there). */
  private static void assertUnreadableBy(String user, VirtualHosts.Host host, Path key) {
    TestCluster.Result steal =
        TestCluster.exec(
            Path.of("/"),
            host.command(List.of("runuser", "-u", user, "--", "cat", key.toString())));
    assertNotEquals(0, steal.exit(), user + " read " + key + ": " + steal);
  }

  /** {@code user} of {@code host}, who has no credential, gets no TLS session at {@code port}. */
  private static void assertNoSessionWithoutACredential(
      String user, VirtualHosts.Host host, String port) {
    TestCluster.Result handshake =
        TestCluster.exec(
            Path.of("/"),
            host.command(
                List.of(
                    "runuser",
                    "-u",
                    user,
                    "--",
                    "sh",
                    "-c",
                    "echo | timeout 30 openssl s_client -quiet -tls1_3 -connect "
                        + port
                        + " 2>&1; true")));
    assertTrue(
        handshake.out().contains("certificate required") || handshake.out().contains("alert"),
        handshake.toString());
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static String number(String id) {
    return id.substring(0, id.indexOf('.'));
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
            () -> keep(held, site.ok(SiteIT.login, ALICE, desk, "qsub", "-h", empty.toString())));
    server[0] =
        median(
            () ->
                keep(
                    held,
                    succeed(site.onServerHost(ALICE, shared, "qsub", "-h", empty.toString()))));
    login[1] = median(() -> site.ok(SiteIT.login, ALICE, desk, "qstat", id));
    server[1] = median(() -> succeed(site.onServerHost(ALICE, shared, "qstat", id)));
    System.out.printf(
        "SiteIT: median wall time of 5 calls as %s: qsub %d ms on the login host, %d ms on the"
            + " server host; qstat %d ms on the login host, %d ms on the server host%n",
        ALICE, login[0], server[0], login[1], server[1]);
    for (String h : held) {
      site.ok(SiteIT.login, ALICE, desk, "qdel", h);
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
      return CgroupTrees.below(site.cgroupRoot).stream()
          .anyMatch(p -> p.getFileName().toString().equals(id));
    } catch (IOException e) {
      return true;
    }
  }

  private static String cgroups() {
    try {
      return CgroupTrees.below(site.cgroupRoot).toString();
    } catch (IOException e) {
      return e.toString();
    }
  }
}
