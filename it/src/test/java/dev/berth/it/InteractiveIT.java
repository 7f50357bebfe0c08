package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.AttachJob;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.Sealed;
import dev.berth.proto.SubmitJob;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TerminalIn;
import dev.berth.proto.TerminalOut;
import dev.berth.proto.WindowSize;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * qsub -I and -x as a user runs them: qsub on a pseudo-terminal the test types into, the job's
 * shell on a pseudo-terminal of the mother superior, in the job's cgroup; its exit status, qdel and
 * the walltime; and what another user, or anyone reaching a mom's terminal port, cannot do.
 */
@Tag("integration")
class InteractiveIT {
  static final String USER = TestUsers.ALICE;
  static final Duration LONG = Duration.ofSeconds(90);

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER, TestUsers.BOB);
    work = MultiNodeCluster.workFor(USER, "berth-interactive-");
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", "0-1");
    cluster.startMom("b", "1");
    cluster.qmgr("set server cgroup_enable = True");
    JobTools.ensureOnPath(); // srun inside the allocations
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
  }

  private static TerminalDriver qsub(int rows, int columns, String options) throws IOException {
    return TerminalDriver.start(
        USER,
        work,
        List.of("BERTH_SERVER=" + cluster.socket),
        rows,
        columns,
        TestCluster.ROOT.resolve("ops/bin/qsub") + " " + options);
  }

  private static Job await(String id, JobState state) {
    return cluster.await(id, j -> j.getState() == state, LONG);
  }

  @Test
  void aShellOnATerminalInTheJobsCgroupWithTheJobsEnvironmentAndItsExitStatus() throws Exception {
    try (TerminalDriver t = qsub(33, 101, "-I -N chat -l nodes=a:ppn=1,walltime=600")) {
      String id = t.await("qsub: waiting for job (\\S+) to start").group(1);
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " ready");
      t.type(
          "echo \"cg=$(grep -c \"$PBS_JOBID\" /proc/self/cgroup) id=$PBS_JOBID"
              + " env=$PBS_ENVIRONMENT tty=$(tty) name=$PBS_JOBNAME\"\n");
      Matcher m = t.await("cg=([0-9]+) id=(\\S+) env=(\\S+) tty=(\\S+) name=(\\S+)");
      assertNotEquals("0", m.group(1), "the shell is in the job's cgroups:\n" + t.screen());
      assertEquals(id, m.group(2));
      assertEquals("PBS_INTERACTIVE", m.group(3));
      assertTrue(m.group(4).startsWith("/dev/pts/"), m.group(4));
      assertEquals("chat", m.group(5));

      t.type("stty size\n");
      t.await("(?m)^33 101\\r?$");

      // Ctrl-C reaches the foreground process through the job's terminal, as on any login
      t.type("sh -c 'echo sleep''ing; exec sleep 600'\n");
      t.await("(?m)^sleeping\\r?$");
      t.type("\u0003");
      t.type("echo \"rc=$?\"\n");
      t.await("rc=130");

      t.type("exit 7\n");
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " completed");
      assertEquals(7, t.exitStatus(LONG));
      Job done = await(id, JobState.COMPLETED);
      assertEquals(7, done.getExitStatus(), done.toString());
      assertTrue(
          cluster.cli("qstat", "-f", id).out().contains("exit_status = 7"),
          cluster.cli("qstat", "-f", id).out());
    }
  }

  /** A command of ops/bin as the user, from the work directory, with no terminal. */
  private static TestCluster.Result user(String command, String... args) {
    return cluster.commandAs(USER, work, command, args);
  }

  /**
   * Slurm's srun outside a job allocates, runs its step there (tasks on both nodes, in the job's
   * cgroup, labelled) and releases it; salloc holds an allocation for a command whose own srun uses
   * it. Both exit with what ran there, and say what they did in Slurm's words.
   */
  @Test
  void srunAndSallocAllocateRunAndReleaseAsSlurmsDo() {
    TestCluster.Result step =
        user(
            "srun",
            "-N",
            "2",
            "-l",
            "sh",
            "-c",
            "echo rank=$SLURM_PROCID node=$SLURM_NODEID"
                + " cg=$(grep -c \"$PBS_JOBID\" /proc/self/cgroup); exit $SLURM_PROCID");
    assertEquals(1, step.exit(), step.toString());
    // the session's terminal joins the step's standard error to its output
    List<String> lines = step.out().lines().sorted().toList();
    assertEquals(3, lines.size(), step.toString());
    assertTrue(lines.get(0).matches("0: rank=0 node=0 cg=[1-9][0-9]*"), step.toString());
    assertTrue(lines.get(1).matches("1: rank=1 node=1 cg=[1-9][0-9]*"), step.toString());
    assertEquals("srun: error: b: task 1: Exited with exit code 1", lines.get(2));
    assertEquals(
        "",
        step.err()
            .replaceAll(
                "srun: job [0-9]+ (queued and waiting for resources|has been allocated resources)\n",
                ""),
        "srun says nothing of its own but that the job waits, if it does");

    TestCluster.Result held =
        user(
            "salloc",
            "-N",
            "1",
            "-n",
            "2",
            "-J",
            "held",
            "sh",
            "-c",
            "echo id=$SLURM_JOB_ID name=$SLURM_JOB_NAME; srun -l hostname | sort; exit 5");
    assertEquals(5, held.exit(), held.toString());
    Matcher id = java.util.regex.Pattern.compile("id=(\\d+) name=held\n").matcher(held.out());
    assertTrue(id.find(), held.toString());
    String number = id.group(1);
    assertTrue(held.out().contains("0: ") && held.out().contains("1: "), held.toString());
    assertEquals(
        "salloc: Granted job allocation "
            + number
            + "\nsalloc: Relinquishing job allocation "
            + number
            + "\n",
        held.err().replaceAll("salloc: (Pending job allocation|job) " + number + "[^\n]*\n", ""));
    assertEquals(JobState.COMPLETED, await(number, JobState.COMPLETED).getState());

    TestCluster.Result refused = user("salloc", "--qos=high", "true");
    assertEquals(1, refused.exit(), refused.toString());
    assertEquals(
        "salloc: error: --qos is not supported by Berth's salloc yet (docs/slurm.md lists what"
            + " is)\n",
        refused.err());
    TestCluster.Result fed =
        cluster.commandAs(
            USER,
            work,
            "piped in\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            "srun",
            "-n",
            "1",
            "sed",
            "s/in/through/");
    assertEquals(0, fed.exit(), fed.toString());
    assertEquals("piped through\n", fed.out(), "srun's stdin reaches task 0 there");

    TestCluster.Result nothing = user("srun", "-N", "1");
    assertEquals(1, nothing.exit(), nothing.toString());
    assertEquals("srun: fatal: No command given to execute.\n", nothing.err());
  }

  /** pyxis's users' {@code srun --pty bash}: a shell on a terminal in an allocation of its own. */
  @Test
  void srunPtyIsAShellOnATerminal() throws Exception {
    try (TerminalDriver t =
        TerminalDriver.start(
            USER,
            work,
            List.of("BERTH_SERVER=" + cluster.socket),
            24,
            80,
            TestCluster.ROOT.resolve("ops/bin/srun") + " -N 1 --pty /bin/sh")) {
      t.type("echo \"tty=$(tty) job=$SLURM_JOB_ID\"\n");
      Matcher m = t.await("tty=(/dev/pts/[0-9]+) job=([0-9]+)");
      t.type("exit 4\n");
      assertEquals(4, t.exitStatus(LONG));
      await(m.group(2), JobState.COMPLETED);
    }
  }

  @Test
  void dashXRunsACommandAndWantsNoTerminal() throws Exception {
    TestCluster.Result r =
        TestCluster.exec(
            work,
            List.of(
                "runuser",
                "-u",
                USER,
                "--",
                "env",
                "BERTH_SERVER=" + cluster.socket,
                TestCluster.ROOT.resolve("ops/bin/qsub").toString(),
                "-I",
                "-x",
                "echo x-ran-$PBS_ENVIRONMENT-$(tty); exit 3"));
    assertEquals(3, r.exit(), r.toString());
    assertTrue(r.out().contains("x-ran-PBS_INTERACTIVE-/dev/pts/"), r.toString());
  }

  @Test
  void qdelAndTheWalltimeEndASession() throws Exception {
    try (TerminalDriver t = qsub(24, 80, "-I -l nodes=1:ppn=1")) {
      String id = t.await("qsub: waiting for job (\\S+) to start").group(1);
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " ready");
      TestCluster.Result del = cluster.cli("qdel", id);
      assertEquals(0, del.exit(), del.toString());
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " completed");
      await(id, JobState.COMPLETED);
    }
    try (TerminalDriver t = qsub(24, 80, "-I -l nodes=1:ppn=1,walltime=3")) {
      String id = t.await("qsub: waiting for job (\\S+) to start").group(1);
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " ready");
      t.await("=>> PBS: job killed: walltime");
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " completed");
      Job done = await(id, JobState.COMPLETED);
      assertEquals(-11, done.getExitStatus(), done.toString());
    }
  }

  @Test
  void aSessionWhoseQsubWentAwayIsHungUpAndEnds() throws Exception {
    String id;
    try (TerminalDriver t = qsub(24, 80, "-I -l nodes=1:ppn=1")) {
      id = t.await("qsub: waiting for job (\\S+) to start").group(1);
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " ready");
    } // the user's terminal closes: qsub ends with it
    Job done = await(id, JobState.COMPLETED);
    // the shell ends on SIGHUP or on its terminal's end, whichever it meets first
    assertEquals("its qsub -I went away (the terminal hung up)", done.getExitReason());
    assertTrue(
        cluster.cli("tracejob", id).out().contains("its qsub -I went away"),
        cluster.cli("tracejob", id).out());
  }

  /**
   * Attacks: another user asks for the permit of alice's session; a permit shown to another node's
   * mom, altered, shown twice, or without TLS; a permit for a batch job.
   */
  @Test
  void onlyTheOwnerGetsAPermitAndAMomTakesOnlyAGoodOneOnce() throws Exception {
    try (TerminalDriver t = qsub(24, 80, "-I -l nodes=a:ppn=1,walltime=600")) {
      String id = t.await("qsub: waiting for job (\\S+) to start").group(1);
      t.await("qsub: job " + java.util.regex.Pattern.quote(id) + " ready");

      Response hidden = attach(TestUsers.BOB, id);
      assertEquals(Error.Code.UNKNOWN_JOB, hidden.getError().getCode(), hidden.toString());
      cluster.qmgr("set server query_other_jobs = True");
      try {
        Response seen = attach(TestUsers.BOB, id);
        assertEquals(Error.Code.PERMISSION, seen.getError().getCode(), seen.toString());
      } finally {
        cluster.qmgr("set server query_other_jobs = False");
      }

      AttachReply mine = attach(USER, id).getAttach();
      assertEquals("a", mine.getNode());
      // the session is attached already: the same permit again is refused
      assertTrue(
          show(mine.getAddress(), mine, mine.getPermit()).getRefused().contains("has its session"),
          "a second session");

      // altered: a signature that no longer matches
      Sealed permit = mine.getPermit();
      byte[] letter = permit.getLetter().toByteArray();
      letter[letter.length - 1] ^= 1;
      Sealed altered = permit.toBuilder().setLetter(ByteString.copyFrom(letter)).build();
      assertTrue(
          show(mine.getAddress(), mine, altered).getRefused().startsWith("permit refused"),
          "an altered permit");

      // another node's mom: the permit is addressed to a
      String bAddress = addressOfB();
      assertTrue(
          show(bAddress, mine, permit).getRefused().startsWith("permit refused"),
          "node a's permit at node b");

      // plain TCP at the TLS port: no handshake, nothing answered
      String[] hostPort = mine.getAddress().split(":");
      try (Socket plain = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
        plain.setSoTimeout(20_000);
        TerminalIn.newBuilder()
            .setAttach(TerminalAttach.newBuilder().setPermit(permit))
            .build()
            .writeDelimitedTo(plain.getOutputStream());
        InputStream in = plain.getInputStream();
        int first;
        try {
          first = in.read();
        } catch (IOException e) {
          first = -1;
        }
        assertTrue(first == -1 || first == 0x15, "a TLS alert or nothing, got " + first);
      }

      t.type("exit 0\n");
      assertEquals(0, t.exitStatus(LONG));
    }
    String batch = cluster.submitAs(USER, work, "#!/bin/sh\ntrue\n");
    Response notInteractive = attach(USER, batch);
    assertEquals(
        Error.Code.BAD_STATE, notInteractive.getError().getCode(), notInteractive.toString());
  }

  /** The terminal address of node b, from a permit for an interactive job of alice's there. */
  private static String addressOfB() throws Exception {
    Started b = startRaw("b");
    try {
      return b.reply().getAddress();
    } finally {
      cluster.cli("qdel", b.id());
    }
  }

  /** An interactive job of alice's submitted without qsub, and the permit for it once it runs. */
  private record Started(String id, AttachReply reply) {}

  private static Started startRaw(String node) throws Exception {
    Response submitted =
        RawClient.send(
                USER,
                cluster.socket,
                List.of(
                    Request.newBuilder()
                        .setId(1)
                        .setSubmit(
                            SubmitJob.newBuilder()
                                .addAttributes(attribute("interactive", "", "True"))
                                .addAttributes(attribute("work_dir", "", work.toString()))
                                .addAttributes(
                                    attribute("Resource_List", "nodes", node + ":ppn=1")))
                        .build()))
            .get(0);
    String id = submitted.getSubmitted().getJobId();
    assertFalse(id.isEmpty(), submitted.toString());
    long deadline = System.currentTimeMillis() + LONG.toMillis();
    while (System.currentTimeMillis() < deadline) {
      Response r = attach(USER, id);
      if (!r.getAttach().getAddress().isEmpty()) {
        return new Started(id, r.getAttach());
      }
      TestCluster.sleep(200);
    }
    cluster.cli("qdel", id);
    throw new AssertionError("job " + id + " on node " + node + " did not start");
  }

  /**
   * What a peer without a credential can do at a terminal port: hold a connection only while it
   * shows a permit (30 s, however slowly it sends), and with a good permit a window no terminal has
   * is ignored, not fatal to the job.
   */
  @Test
  void theTerminalPortBoundsWhatAPeerCanDo() throws Exception {
    Started job = startRaw("a");
    String address = job.reply().getAddress();
    int colon = address.lastIndexOf(':');
    InetSocketAddress port =
        new InetSocketAddress(
            address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    try (SSLSocket slow = tls(job.reply())) {
      slow.connect(port, 10_000);
      slow.setSoTimeout(5_000);
      slow.startHandshake();
      OutputStream out = slow.getOutputStream();
      out.write(new byte[] {(byte) 0x90, 0x4e}); // a frame of 10,000 bytes is coming
      out.flush();
      long since = System.nanoTime();
      boolean cut = false;
      while (!cut && System.nanoTime() - since < 45e9) {
        try {
          out.write(0); // a byte now and then, as a slow peer that never finishes
          out.flush();
          cut = slow.getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException quiet) {
          // nothing said yet: send the next byte
        } catch (IOException gone) {
          cut = true;
        }
      }
      assertTrue(cut, "the mom cut the connection within the permit's 30 s");
    }

    try (SSLSocket socket = tls(job.reply())) {
      socket.connect(port, 10_000);
      socket.setSoTimeout(60_000);
      TerminalIn.newBuilder()
          .setAttach(
              TerminalAttach.newBuilder()
                  .setPermit(job.reply().getPermit())
                  .setTerm("xterm")
                  .setWindow(WindowSize.newBuilder().setRows(70_000).setColumns(-3)))
          .build()
          .writeDelimitedTo(socket.getOutputStream());
      InputStream in = socket.getInputStream();
      assertTrue(TerminalOut.parseDelimitedFrom(in).getReady(), "the session began");
      TerminalIn.newBuilder()
          .setWindow(WindowSize.newBuilder().setRows(Integer.MAX_VALUE).setColumns(80))
          .build()
          .writeDelimitedTo(socket.getOutputStream());
      TerminalIn.newBuilder()
          .setInput(ByteString.copyFromUtf8("exit 5\n"))
          .build()
          .writeDelimitedTo(socket.getOutputStream());
      TerminalOut frame;
      while ((frame = TerminalOut.parseDelimitedFrom(in)) != null && !frame.hasExitStatus()) {
        // the shell's output
      }
      assertTrue(frame != null && frame.getExitStatus() == 5, "the shell ran: " + frame);
    }
    assertEquals(5, await(job.id(), JobState.COMPLETED).getExitStatus());
  }

  private static Attribute attribute(String name, String resource, String value) {
    return Attribute.newBuilder().setName(name).setResource(resource).setValue(value).build();
  }

  private static Response attach(String user, String id) throws IOException {
    return RawClient.send(
            user,
            cluster.socket,
            List.of(
                Request.newBuilder()
                    .setId(1)
                    .setAttach(AttachJob.newBuilder().setJobId(id))
                    .build()))
        .get(0);
  }

  /** Shows {@code permit} at the terminal port {@code address} over TLS; the mom's first answer. */
  private static TerminalOut show(String address, AttachReply reply, Sealed permit)
      throws Exception {
    int colon = address.lastIndexOf(':');
    try (SSLSocket socket = tls(reply)) {
      socket.connect(
          new InetSocketAddress(
              address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))),
          10_000);
      socket.setSoTimeout(30_000);
      socket.startHandshake();
      TerminalIn.newBuilder()
          .setAttach(TerminalAttach.newBuilder().setPermit(permit).setTerm("xterm"))
          .build()
          .writeDelimitedTo(socket.getOutputStream());
      return TerminalOut.parseDelimitedFrom(socket.getInputStream());
    }
  }

  private static SSLSocket tls(AttachReply reply) throws Exception {
    KeyStore anchors = KeyStore.getInstance("PKCS12");
    anchors.load(null, null);
    int i = 0;
    for (Certificate c :
        CertificateFactory.getInstance("X.509")
            .generateCertificates(
                new ByteArrayInputStream(
                    reply
                        .getCaCertificates()
                        .toString(StandardCharsets.US_ASCII)
                        .getBytes(StandardCharsets.US_ASCII)))) {
      anchors.setCertificateEntry("ca" + i++, c);
    }
    TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
    trust.init(anchors);
    SSLContext context = SSLContext.getInstance("TLSv1.3");
    context.init(null, trust.getTrustManagers(), null);
    return (SSLSocket) context.getSocketFactory().createSocket();
  }
}
