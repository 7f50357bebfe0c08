package dev.berth.mom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import dev.berth.core.Services;
import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.LinuxLauncher;
import dev.berth.mom.os.LinuxUsers;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.ProcessSessions;
import dev.berth.mom.os.cgroup.CgroupConfig;
import dev.berth.mom.os.cgroup.CgroupDriver;
import dev.berth.mom.os.cgroup.Cgroups;
import dev.berth.mom.os.cgroup.JobCgroup;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobStartedReport;
import dev.berth.proto.JobSuspendReport;
import dev.berth.proto.KillJob;
import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeHello;
import dev.berth.proto.ObitAck;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.RunJob;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SignalJobTask;
import dev.berth.proto.SuspendJob;
import dev.berth.proto.UnaccountedJob;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.seal.Seal;
import dev.berth.security.seal.SignedSeal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mom with real job processes, talking to a stand-in server ({@link ServerStub}) registered in
 * the receptionist under the server's service key, with credentials of a test CA: letters are
 * really sealed and checked.
 */
@Tag("integration")
class MomActorIT {
  private static final Path STARTER = Path.of("target/native/berth-starter").toAbsolutePath();
  private static final ServiceKey<Sealed> SERVER_KEY =
      ServiceKey.create(Sealed.class, Services.SERVER);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Duration RESEND = Duration.ofMillis(300);

  @TempDir static Path credentials;
  private static Seal serverSeal;
  private static Seal momSeal;
  private static Seal otherMomSeal;

  @TempDir Path dir;
  private ActorTestKit kit;
  private TestProbe<ServerInbound> server;
  private ActorRef<Object> stub;
  private MomConfig config;
  private JobRecords records;
  private final List<Long> sessions = new ArrayList<>();

  /** A running mom: its actor, the inbox it announced, and its hello. */
  private record Mom(
      ActorRef<MomActor.Command> actor,
      ActorRef<Sealed> inbox,
      NodeHello hello,
      ActorRef<Object> stub) {
    /** From the server. */
    void tell(MomInbound.Builder message) {
      tell(message, serverSeal);
    }

    /** The same message, sealed by someone else. */
    void tell(MomInbound.Builder message, Seal forger) {
      stub.tell(new ServerStub.Send(hello.getNode().getName(), message.build(), forger));
    }
  }

  @BeforeAll
  static void credentials() throws IOException {
    Clock clock = Clock.systemUTC();
    Duration year = Duration.ofDays(365);
    CertificateAuthority ca =
        CertificateAuthority.create(credentials.resolve("ca"), "test", year, clock);
    serverSeal =
        new SignedSeal(
            ca.issue(new Identity(Role.SERVER, "head"), List.of(), year, credentials.resolve("s")),
            clock);
    momSeal =
        new SignedSeal(
            ca.issue(new Identity(Role.MOM, "node1"), List.of(), year, credentials.resolve("m")),
            clock);
    otherMomSeal =
        new SignedSeal(
            ca.issue(new Identity(Role.MOM, "node2"), List.of(), year, credentials.resolve("o")),
            clock);
  }

  @BeforeEach
  void setUp() throws IOException {
    kit = ActorTestKit.create();
    server = kit.createTestProbe(ServerInbound.class);
    stub = kit.spawn(ServerStub.create(serverSeal, server.ref()));
    kit.system().receptionist().tell(Receptionist.register(SERVER_KEY, stub.narrow()));
    JobFiles.prepareBase(dir.resolve("tmp"));
    config = config(true);
    records = new JobRecords(dir.resolve("home/jobs"));
  }

  /** These tests run their jobs as root (the test JVM's user) unless told otherwise. */
  private MomConfig config(boolean rootJobs) {
    return new MomConfig(
        "node1",
        List.of(0, 1),
        List.of("test"),
        dir.resolve("home"),
        dir.resolve("tmp"),
        STARTER,
        Duration.ofMillis(200),
        RESEND,
        "0.1-test",
        null,
        false,
        rootJobs,
        dev.berth.mom.output.OutputRoutes.inPlace(),
        null,
        List.of(),
        null,
        dev.berth.mom.os.gpu.GpuMonitor.off(),
        null,
        dev.berth.mom.SiteScripts.NONE,
        null,
        NodeMetrics.unscraped("test"));
  }

  @AfterEach
  void tearDown() {
    sessions.forEach(ProcessSessions::kill);
    kit.shutdownTestKit();
  }

  private Mom startMom() throws IOException {
    return startMom(Isolation.none("this test runs jobs without cgroups"));
  }

  private Mom startMom(Isolation isolation) throws IOException {
    return startMom(config, records, momSeal, isolation);
  }

  private Mom startMom(MomConfig config, JobRecords records, Seal seal, Isolation isolation)
      throws IOException {
    ActorRef<MomActor.Command> actor =
        kit.spawn(
            MomActor.create(
                config,
                new LinuxLauncher(STARTER),
                new LinuxUsers(config.nativeLibrary()),
                NodeFacts.linux(),
                records,
                isolation,
                seal));
    NodeHello hello = expect(ServerInbound::hasHello, TIMEOUT).getHello();
    TestProbe<ActorRef<Sealed>> where = kit.createTestProbe();
    stub.tell(new ServerStub.WhereIsMom(config.name(), where.ref()));
    return new Mom(actor, where.receiveMessage(), hello, stub);
  }

  /** node2's mom, with a home and TMPDIR base of its own, as a sister of node1's jobs. */
  private Mom startSister() throws IOException {
    Path base = dir.resolve("node2");
    JobFiles.prepareBase(base.resolve("tmp"));
    MomConfig sister =
        new MomConfig(
            "node2",
            List.of(0, 1),
            List.of("test"),
            base.resolve("home"),
            base.resolve("tmp"),
            STARTER,
            Duration.ofMillis(200),
            RESEND,
            "0.1-test",
            null,
            false,
            true,
            dev.berth.mom.output.OutputRoutes.inPlace(),
            null,
            List.of(),
            null,
            dev.berth.mom.os.gpu.GpuMonitor.off(),
            null,
            dev.berth.mom.SiteScripts.NONE,
            null,
            NodeMetrics.unscraped("test"));
    return startMom(
        sister,
        new JobRecords(base.resolve("home/jobs")),
        otherMomSeal,
        Isolation.none("this test runs jobs without cgroups"));
  }

  /** The next message {@code wanted} accepts, skipping others (heartbeats, resends). */
  private ServerInbound expect(Predicate<ServerInbound> wanted, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      Duration left = Duration.ofNanos(deadline - System.nanoTime());
      if (left.isNegative()) {
        throw new AssertionError("no matching message from the mom within " + within);
      }
      ServerInbound m = server.receiveMessage(left);
      if (wanted.test(m)) {
        return m;
      }
    }
  }

  private JobStartedReport expectStarted(String jobId) {
    JobStartedReport started =
        expect(m -> m.hasStarted() && m.getStarted().getJobId().equals(jobId), TIMEOUT)
            .getStarted();
    sessions.add(started.getSessionId());
    return started;
  }

  private JobObitReport expectObit(String jobId, Duration within) {
    return expect(m -> m.hasObit() && m.getObit().getJobId().equals(jobId), within).getObit();
  }

  /** Waits for a heartbeat sent after the mom forgot the job, so no report of it can follow. */
  private void expectForgotten(String jobId) {
    expect(m -> m.hasStatus() && !m.getStatus().getRunningJobsList().contains(jobId), TIMEOUT);
  }

  private Job.Builder job(String id) {
    return Job.newBuilder()
        .setId(id)
        .setNumber(Long.parseLong(id.substring(0, id.indexOf('.'))))
        .setName("t")
        .setEuser("root")
        .setQueue("batch")
        .setServer("test")
        .setShell("/bin/sh")
        .setInitWorkDir(dir.toString())
        .setOutputPath("node1:" + dir.resolve(id + ".o"))
        .setErrorPath("node1:" + dir.resolve(id + ".e"))
        .addExecNodes(NodeAllocation.newBuilder().setNode("node1").addCpus(0));
  }

  /** A run request with the server's grant, which the sisters check before they join. */
  private static MomInbound.Builder runWithGrant(Job.Builder job, String script, int killDelay) {
    RunJob run = run(job, script, killDelay).getRun();
    Sealed grant =
        serverSeal.seal(
            Letter.newBuilder()
                .setTo("node1")
                .setToMom(MomInbound.newBuilder().setRun(run.toBuilder().clearScript())));
    return MomInbound.newBuilder().setRun(run.toBuilder().setGrant(grant));
  }

  private static MomInbound.Builder run(Job.Builder job, String script, int killDelay) {
    return MomInbound.newBuilder()
        .setRun(
            RunJob.newBuilder()
                .setJob(job)
                .setScript(ByteString.copyFromUtf8(script + "\n"))
                .setKillDelay(killDelay));
  }

  private static MomInbound.Builder kill(String jobId, int killDelay) {
    return MomInbound.newBuilder()
        .setKill(KillJob.newBuilder().setJobId(jobId).setReason("deleted").setKillDelay(killDelay));
  }

  private static MomInbound.Builder suspend(String jobId, boolean suspend) {
    return MomInbound.newBuilder()
        .setSuspend(SuspendJob.newBuilder().setJobId(jobId).setSuspend(suspend));
  }

  private JobSuspendReport expectSuspendReport(String jobId) {
    return expect(
            m -> m.hasSuspendReport() && m.getSuspendReport().getJobId().equals(jobId), TIMEOUT)
        .getSuspendReport();
  }

  /**
   * The script's sleep, once it runs: not just any process of the session, since root's login
   * profile forks its own first.
   */
  private static long scriptSleep(long sid) {
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.runs(sid, "sleep")),
        "the script's sleep");
    return ProcessSessions.running(sid, "sleep").get(0);
  }

  private static MomInbound.Builder obitAck(String jobId) {
    return MomInbound.newBuilder().setObitAck(ObitAck.newBuilder().setJobId(jobId));
  }

  @Test
  void runsAJobReportsItAndForgetsItWhenTheObitIsAcknowledged() throws Exception {
    Mom mom = startMom();
    assertEquals("node1", mom.hello().getNode().getName());
    assertEquals(List.of(0, 1), mom.hello().getNode().getCpuIdsList());

    mom.tell(run(job("1.test"), "echo hi; exit 3", 5));
    JobStartedReport started = expectStarted("1.test");
    assertEquals("node1", started.getNode());
    assertTrue(started.getSessionId() > 1);
    JobObitReport obit = expectObit("1.test", TIMEOUT);
    assertEquals(3, obit.getExitStatus());
    assertEquals("", obit.getReason());
    assertEquals("hi\n", Files.readString(dir.resolve("1.test.o")));
    assertFalse(Files.exists(dir.resolve("tmp/1.test")), "TMPDIR removed");
    assertTrue(Files.exists(records.recordFile("1.test")), "kept until the server has the obit");

    mom.tell(obitAck("1.test"));
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !Files.exists(records.recordFile("1.test"))));
    expectForgotten("1.test");
    long quiet = System.nanoTime() + RESEND.multipliedBy(4).toNanos();
    while (System.nanoTime() < quiet) {
      ServerInbound m = server.receiveMessage(TIMEOUT);
      assertFalse(m.hasObit(), "obit sent again after its acknowledgement: " + m);
    }
  }

  @Test
  void aDuplicateRunJobIsIgnored() throws Exception {
    Mom mom = startMom();
    Path runs = dir.resolve("runs");
    MomInbound.Builder run = run(job("2.test"), "echo run >> " + runs + "; sleep 1", 5);
    mom.tell(run);
    mom.tell(run);
    Set<Long> sessionIds = new HashSet<>();
    ServerInbound m;
    do {
      m = expect(x -> x.hasStarted() || x.hasObit(), TIMEOUT);
      if (m.hasStarted()) {
        sessionIds.add(m.getStarted().getSessionId());
        sessions.add(m.getStarted().getSessionId());
      }
    } while (!m.hasObit());
    assertEquals(0, m.getObit().getExitStatus());
    assertEquals(1, sessionIds.size(), "started once: " + sessionIds);

    mom.tell(run); // again while the obit waits for its acknowledgement
    expectObit("2.test", TIMEOUT);
    expectObit("2.test", TIMEOUT);
    assertEquals("run\n", Files.readString(runs));
    mom.tell(obitAck("2.test"));
    expectForgotten("2.test");
  }

  @Test
  void killOfAnUnknownJobAnswersWithAnObit() throws Exception {
    Mom mom = startMom();
    mom.tell(kill("99.test", 5));
    JobObitReport obit = expectObit("99.test", TIMEOUT);
    assertEquals(-1, obit.getExitStatus());
    assertEquals("node1", obit.getNode());
  }

  /** The failed start the server hears of: an obit with -1 and the reason, until acknowledged. */
  private JobObitReport expectFailedStart(Mom mom, String jobId) throws IOException {
    ServerInbound m = expect(x -> x.hasObit() || x.hasStarted(), TIMEOUT);
    assertTrue(m.hasObit(), m.toString());
    JobObitReport obit = m.getObit();
    assertEquals(jobId, obit.getJobId());
    assertEquals(-1, obit.getExitStatus());
    assertTrue(obit.getReason().startsWith("could not start on node1: "), obit.getReason());
    assertFalse(Files.exists(dir.resolve("tmp").resolve(jobId)), "its TMPDIR is gone at once");
    assertEquals(obit, expectObit(jobId, TIMEOUT), "sent again until acknowledged");
    mom.tell(obitAck(jobId));
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !Files.exists(records.recordFile(jobId))));
    return obit;
  }

  @Test
  void aJobOfAnUnknownUserEndsAsAFailedStart() throws Exception {
    Mom mom = startMom();
    mom.tell(run(job("3.test").setEuser("berth-no-such-user"), "true", 5));
    JobObitReport obit = expectFailedStart(mom, "3.test");
    assertTrue(obit.getReason().contains("does not exist"), obit.getReason());
  }

  @Test
  void killEndsARunningJobAndEverythingInItsSession() throws Exception {
    Mom mom = startMom();
    mom.tell(run(job("4.test"), "sleep 100", 30));
    long sid = expectStarted("4.test").getSessionId();
    // the script's sleep, not just a third process: root's login profile forks its own first
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.runs(sid, "sleep")),
        "the script's sleep");

    mom.tell(kill("4.test", 30));
    JobObitReport obit = expectObit("4.test", TIMEOUT);
    assertEquals(256 + 15, obit.getExitStatus());
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.members(sid).isEmpty()),
        "left in the session: " + ProcessSessions.members(sid));
    mom.tell(obitAck("4.test"));
  }

  @Test
  void aJobPastItsWalltimeIsKilledAndTold() throws Exception {
    Mom mom = startMom();
    Job.Builder job = job("5.test").setResources(ResourceRequest.newBuilder().setWalltime(2));
    mom.tell(run(job, "sleep 100", 5));
    long sid = expectStarted("5.test").getSessionId();

    JobObitReport obit = expectObit("5.test", TIMEOUT.plusSeconds(5));
    assertEquals(ExitStatus.OVER_WALLTIME.code(), obit.getExitStatus());
    assertEquals(-11, obit.getExitStatus());
    assertTrue(obit.getReason().contains("walltime"), obit.getReason());
    String stderr = Files.readString(dir.resolve("5.test.e"));
    assertTrue(stderr.contains("exceeded limit"), stderr);
    assertTrue(ProcessSessions.await(TIMEOUT, () -> ProcessSessions.members(sid).isEmpty()));
    mom.tell(obitAck("5.test"));
  }

  @Test
  void aRestartedMomFindsItsRunningJobAgain() throws Exception {
    Mom first = startMom();
    first.tell(run(job("6.test"), "sleep 5; echo done", 5));
    long sid = expectStarted("6.test").getSessionId();
    kit.stop(first.actor(), TIMEOUT);
    assertTrue(ProcessSessions.members(sid).contains(sid), "the job outlives its mom");

    Mom second = startMom();
    assertNotEquals(first.inbox(), second.inbox());
    assertEquals(List.of("6.test"), second.hello().getRunningJobsList());
    assertEquals(sid, expectStarted("6.test").getSessionId());

    JobObitReport obit = expectObit("6.test", TIMEOUT.plusSeconds(5));
    assertEquals(0, obit.getExitStatus(), obit.toString());
    assertEquals("done\n", Files.readString(dir.resolve("6.test.o")));
    second.tell(obitAck("6.test"));
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !Files.exists(records.recordFile("6.test"))));
  }

  @Test
  void aSignalReachesTheJob() throws Exception {
    Mom mom = startMom();
    mom.tell(run(job("7.test"), "trap 'echo got it; exit 5' USR1\nsleep 100 &\nwait", 5));
    long sid = expectStarted("7.test").getSessionId();
    // the script's sleep, not just a third process: root's login profile forks its own first
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.runs(sid, "sleep")),
        "the script's sleep");

    mom.tell(
        MomInbound.newBuilder()
            .setSignal(
                SignalJobTask.newBuilder().setJobId("7.test").setSignal(Signals.parse("USR1"))));
    assertEquals(5, expectObit("7.test", TIMEOUT).getExitStatus());
    assertEquals("got it\n", Files.readString(dir.resolve("7.test.o")));
    mom.tell(obitAck("7.test"));
  }

  @Test
  void aJobThatEndedWhileTheMomWasAwayIsReportedWithItsStatus() throws Exception {
    Mom first = startMom();
    first.tell(run(job("8.test"), "sleep 1; exit 4", 5));
    long sid = expectStarted("8.test").getSessionId();
    kit.stop(first.actor(), TIMEOUT);
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.members(sid).isEmpty()), "job ended");

    Mom second = startMom();
    assertEquals(List.of("8.test"), second.hello().getRunningJobsList());
    JobObitReport obit = expectObit("8.test", TIMEOUT);
    assertEquals(4, obit.getExitStatus(), obit.toString());
    second.tell(obitAck("8.test"));
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !Files.exists(records.recordFile("8.test"))));
  }

  @Test
  void anUnacknowledgedObitIsSentAgainAfterARestart() throws Exception {
    Mom first = startMom();
    first.tell(run(job("9.test"), "exit 6", 5));
    expectStarted("9.test");
    assertEquals(6, expectObit("9.test", TIMEOUT).getExitStatus());
    kit.stop(first.actor(), TIMEOUT);

    Mom second = startMom();
    assertEquals(List.of("9.test"), second.hello().getRunningJobsList());
    assertEquals(6, expectObit("9.test", TIMEOUT).getExitStatus());
    second.tell(obitAck("9.test"));
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !Files.exists(records.recordFile("9.test"))));
  }

  @Test
  void aRunRequestSealedByAMomIsNotActedOn() throws Exception {
    Mom mom = startMom();
    Path ran = dir.resolve("forged-ran");
    // node2's credential is a real one of the cluster, but not a server's: a compromised node.
    mom.tell(run(job("10.test"), "touch " + ran, 5), otherMomSeal);
    // A real request sent after it proves the forged one was handled (in order) and dropped.
    mom.tell(run(job("11.test"), "true", 5));
    expectStarted("11.test");
    assertEquals(0, expectObit("11.test", TIMEOUT).getExitStatus());
    mom.tell(obitAck("11.test"));
    assertFalse(Files.exists(records.recordFile("10.test")), "no record of the forged job");
    assertFalse(Files.exists(ran), "the forged job never ran");
  }

  @Test
  void aRootJobIsRefusedWithoutRootJobs() throws Exception {
    config = config(false);
    Mom mom = startMom();
    mom.tell(run(job("12.test"), "touch " + dir.resolve("root-ran"), 5));
    JobObitReport obit = expectFailedStart(mom, "12.test");
    assertTrue(obit.getReason().contains("--root-jobs"), obit.getReason());
    assertFalse(Files.exists(dir.resolve("root-ran")));
  }

  @Test
  void aJobWhoseRecordCannotBeReadIsLeftAloneUntilTheRecordIsBack() throws Exception {
    Mom first = startMom();
    first.tell(run(job("13.test"), "sleep 100", 5));
    long sid = expectStarted("13.test").getSessionId();
    kit.stop(first.actor(), TIMEOUT);
    Path runRecord = records.recordFile("13.test");
    byte[] intact = Files.readAllBytes(runRecord);
    byte[] damaged = intact.clone();
    damaged[12] ^= 0x55; // in the run request, with the process after it
    Files.write(runRecord, damaged);

    Mom second = startMom();
    assertEquals(List.of(), second.hello().getRunningJobsList());
    assertEquals(1, second.hello().getUnaccountedJobsCount(), second.hello().toString());
    UnaccountedJob unaccounted = second.hello().getUnaccountedJobs(0);
    assertEquals("13.test", unaccounted.getJobId());
    assertTrue(unaccounted.getReason().contains("checksum mismatch"), unaccounted.toString());
    String trouble = expect(ServerInbound::hasTrouble, TIMEOUT).getTrouble().getMessage();
    assertTrue(trouble.startsWith("cannot read its records of jobs 13.test ("), trouble);
    assertTrue(ProcessSessions.members(sid).contains(sid), "the job runs on");

    // Orders about it are not carried out: no start, no kill, no report. The obit for a job the
    // mom has never had, asked for after them, shows they were handled; a heartbeat after it
    // shows the mom took nothing of 13.test on.
    second.tell(run(job("13.test"), "echo second copy > " + dir.resolve("second"), 5));
    second.tell(kill("13.test", 5));
    second.tell(kill("99.test", 5));
    ServerInbound answer = expect(m -> m.hasObit() || m.hasStarted(), TIMEOUT);
    assertEquals("99.test", answer.hasObit() ? answer.getObit().getJobId() : answer.toString());
    ServerInbound heartbeat = expect(ServerInbound::hasStatus, TIMEOUT);
    assertEquals(List.of(), heartbeat.getStatus().getRunningJobsList());
    assertArrayEquals(damaged, Files.readAllBytes(runRecord));
    assertTrue(ProcessSessions.members(sid).contains(sid), "still running");
    kit.stop(second.actor(), TIMEOUT);

    Files.write(runRecord, intact); // the administrator restores the record
    Mom third = startMom();
    assertEquals(List.of("13.test"), third.hello().getRunningJobsList());
    assertEquals(0, third.hello().getUnaccountedJobsCount());
    assertEquals(sid, expectStarted("13.test").getSessionId());
    third.tell(kill("13.test", 5));
    assertEquals(256 + 15, expectObit("13.test", TIMEOUT).getExitStatus());
    third.tell(obitAck("13.test"));
    assertTrue(ProcessSessions.await(TIMEOUT, () -> !Files.exists(records.recordFile("13.test"))));
  }

  @Test
  void aMomThatCannotReadItsRecordsAtAllSaysSoAndLeavesItsJobsRunning() throws Exception {
    Mom first = startMom();
    first.tell(run(job("14.test"), "sleep 100", 5));
    long sid = expectStarted("14.test").getSessionId();
    kit.stop(first.actor(), TIMEOUT);
    Path jobs = dir.resolve("home/jobs");
    Files.move(jobs, dir.resolve("home/jobs.away"));
    Files.writeString(jobs, "not a directory");
    records = new JobRecords(jobs);

    Mom second = startMom();
    assertEquals(List.of(), second.hello().getRunningJobsList());
    assertTrue(
        second.hello().getUnreadableRecords().startsWith("NotDirectoryException"),
        second.hello().toString());
    String trouble = expect(ServerInbound::hasTrouble, TIMEOUT).getTrouble().getMessage();
    assertTrue(trouble.startsWith("cannot read its job records (NotDirectoryException"), trouble);
    assertTrue(ProcessSessions.members(sid).contains(sid), "the job runs on");
    kit.stop(second.actor(), TIMEOUT);

    Files.delete(jobs); // the administrator puts the records back
    Files.move(dir.resolve("home/jobs.away"), jobs);
    records = new JobRecords(jobs);
    Mom third = startMom();
    assertEquals(List.of("14.test"), third.hello().getRunningJobsList());
    assertEquals("", third.hello().getUnreadableRecords());
    assertEquals(sid, expectStarted("14.test").getSessionId());
    third.tell(kill("14.test", 5));
    assertEquals(256 + 15, expectObit("14.test", TIMEOUT).getExitStatus());
    third.tell(obitAck("14.test"));
  }

  @Test
  void aSuspendedJobIsStoppedAndItsWalltimeStandsStillUntilItResumes() throws Exception {
    Mom mom = startMom();
    Job.Builder job = job("15.test").setResources(ResourceRequest.newBuilder().setWalltime(2));
    mom.tell(run(job, "sleep 100", 5));
    JobStartedReport started = expectStarted("15.test");
    long sleep = scriptSleep(started.getSessionId());

    mom.tell(suspend("15.test", true));
    JobSuspendReport report = expectSuspendReport("15.test");
    assertEquals("node1", report.getNode());
    assertTrue(report.getSuspended());
    assertEquals('T', ProcessSessions.state(sleep), "without a cgroup, SIGSTOP stops the job");
    mom.tell(suspend("15.test", true)); // the answer was lost: asked again, answered again
    assertTrue(expectSuspendReport("15.test").getSuspended());

    long frozenUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos(); // past its walltime
    while (System.nanoTime() < frozenUntil) {
      ServerInbound m = server.receiveMessage(TIMEOUT);
      assertFalse(m.hasObit(), "killed for its walltime while suspended: " + m);
    }
    mom.tell(suspend("15.test", false));
    assertFalse(expectSuspendReport("15.test").getSuspended());
    assertNotEquals('T', ProcessSessions.state(sleep), "SIGCONT let it go on");

    JobObitReport obit = expectObit("15.test", TIMEOUT);
    assertEquals(ExitStatus.OVER_WALLTIME.code(), obit.getExitStatus());
    long walltime = obit.getResourcesUsed().getWalltime();
    assertTrue(walltime >= 2 && walltime <= 3, obit.toString());
    assertTrue(
        obit.getEndTime() - started.getStartTime() >= walltime + 2,
        "the 3 s it was suspended are not its walltime: " + obit);
    mom.tell(obitAck("15.test"));
  }

  @Test
  void aSuspendedJobThatIsKilledGoesOnFirstSoThatItSeesSigterm() throws Exception {
    Mom mom = startMom();
    mom.tell(run(job("16.test"), "sleep 100", 30));
    long sid = expectStarted("16.test").getSessionId();
    long sleep = scriptSleep(sid);
    mom.tell(suspend("16.test", true));
    assertTrue(expectSuspendReport("16.test").getSuspended());
    assertEquals('T', ProcessSessions.state(sleep));

    mom.tell(kill("16.test", 30));
    JobObitReport obit = expectObit("16.test", TIMEOUT);
    assertEquals(256 + 15, obit.getExitStatus(), "SIGTERM, not the SIGKILL 30 s later");
    assertTrue(
        ProcessSessions.await(TIMEOUT, () -> ProcessSessions.members(sid).isEmpty()),
        "left in the session: " + ProcessSessions.members(sid));
    mom.tell(obitAck("16.test"));
  }

  @Test
  void onlyTheServerSuspendsAndOnlyJobsOfThisNodeAreAnswered() throws Exception {
    Mom mom = startMom();
    mom.tell(run(job("17.test"), "sleep 100", 5));
    long sleep = scriptSleep(expectStarted("17.test").getSessionId());

    // node2's credential is a real one of the cluster, but not a server's: a compromised node.
    mom.tell(suspend("17.test", true), otherMomSeal);
    mom.tell(suspend("99.test", true));
    mom.tell(suspend("17.test", false));
    JobSuspendReport first = expect(ServerInbound::hasSuspendReport, TIMEOUT).getSuspendReport();
    assertEquals("17.test", first.getJobId(), "a job that is not here gets no answer");
    assertFalse(first.getSuspended(), "the forged suspend was not acted on");
    assertNotEquals('T', ProcessSessions.state(sleep));

    mom.tell(kill("17.test", 5));
    assertEquals(256 + 15, expectObit("17.test", TIMEOUT).getExitStatus());
    mom.tell(suspend("17.test", true)); // its obit is not acknowledged: it is ending here
    assertFalse(expectSuspendReport("17.test").getSuspended(), "an ending job is not frozen");
    mom.tell(obitAck("17.test"));
  }

  @Test
  void aJobWithACgroupIsFrozenThereAndKilledWhileFrozenLeavesNothing() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "cgroups need root");
    CgroupConfig cgroups =
        new CgroupConfig(
            CgroupConfig.Mode.V1,
            "berth-test-" + UUID.randomUUID().toString().substring(0, 8) + "/node1",
            Map.of());
    Isolation isolation = Isolation.open(cgroups, NodeMetrics.unscraped("test"));
    assumeTrue(
        isolation.describe().startsWith("cgroup v1")
            && !isolation.describe().contains("freezer=not mounted"),
        "no cgroup v1 with a freezer here: " + isolation.describe());
    CgroupDriver driver = Cgroups.open(cgroups);
    try {
      Mom mom = startMom(isolation);
      mom.tell(run(job("18.test").setCgroupEnable(true), "sleep 100", 30));
      long sid = expectStarted("18.test").getSessionId();
      long sleep = scriptSleep(sid);

      mom.tell(suspend("18.test", true));
      assertTrue(expectSuspendReport("18.test").getSuspended());
      // D is how a process frozen by the v1 freezer shows; the starter is frozen too, which no
      // signal would do (the mom never signals it).
      assertEquals('D', ProcessSessions.state(sleep));
      assertEquals('D', ProcessSessions.state(sid), "the starter");

      mom.tell(kill("18.test", 30));
      assertEquals(256 + 15, expectObit("18.test", TIMEOUT).getExitStatus());
      assertTrue(
          ProcessSessions.await(TIMEOUT, () -> ProcessSessions.members(sid).isEmpty()),
          "left in the session: " + ProcessSessions.members(sid));
      assertTrue(
          ProcessSessions.await(TIMEOUT, () -> driver.find("18.test").isEmpty()),
          "the cgroup is left");
      mom.tell(obitAck("18.test"));
    } finally {
      for (String id : driver.jobs()) {
        JobCgroup left = driver.find(id).orElseThrow();
        left.killAll(TIMEOUT);
        left.remove(TIMEOUT);
      }
      driver.removeRoot();
    }
  }

  @Test
  void everyNodeOfAJobSuspendsItsOwnPartAndASisterEndsItsPartThawed() throws Exception {
    Mom motherSuperior = startMom();
    Mom sister = startSister();
    Job.Builder job =
        job("19.test").addExecNodes(NodeAllocation.newBuilder().setNode("node2").addCpus(0));
    motherSuperior.tell(runWithGrant(job, "sleep 100", 30));
    long sid = expectStarted("19.test").getSessionId(); // once node2 has joined
    long sleep = scriptSleep(sid);

    for (Mom node : List.of(motherSuperior, sister)) {
      node.tell(suspend("19.test", true));
      JobSuspendReport report = expectSuspendReport("19.test");
      assertEquals(node.hello().getNode().getName(), report.getNode());
      assertTrue(report.getSuspended(), report.toString());
    }
    assertEquals('T', ProcessSessions.state(sleep));
    sister.tell(suspend("19.test", true)); // a repeat, answered again
    JobSuspendReport again = expectSuspendReport("19.test");
    assertEquals("node2", again.getNode());
    assertTrue(again.getSuspended());

    motherSuperior.tell(kill("19.test", 30)); // and node1 tells node2 to end its part
    assertEquals(256 + 15, expectObit("19.test", TIMEOUT).getExitStatus());
    assertFalse(Files.exists(dir.resolve("node2/tmp/19.test")), "node2 let the job go");
    assertFalse(Files.exists(dir.resolve("node2/home/jobs/19.test.record")), "and its record");
    assertFalse(Files.exists(dir.resolve("node2/home/jobs/19.test")), "with its suspension");
    motherSuperior.tell(obitAck("19.test"));
  }
}
