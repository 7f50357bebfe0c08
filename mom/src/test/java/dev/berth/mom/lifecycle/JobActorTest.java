package dev.berth.mom.lifecycle;

import static dev.berth.mom.lifecycle.FakeNode.JOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.MomActor;
import dev.berth.mom.SiteScripts;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.cgroup.CgroupUsage;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SisterDone;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mother superior's job lifecycle with the OS faked: its races (obit, kill and suspension), a
 * mom restart in each phase, sisters that are lost, a damaged record. Time is manual, so walltimes
 * and the sisters' timeouts pass at once.
 */
class JobActorTest {
  private static final ActorTestKit KIT = ActorTestKit.create(ManualTime.config());
  private static final int TERM = Signals.SIGTERM;
  private static final int KILL = Signals.SIGKILL;

  @TempDir Path dir;
  private FakeNode node;

  @BeforeEach
  void node() {
    node = new FakeNode(KIT, dir);
  }

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private ActorRef<JobActor.Command> start(RunJob run) {
    return KIT.spawn(JobActor.start(node.services, run));
  }

  /** Starts a job without sisters and waits until its start is reported; its session. */
  private JobProcess running(ActorRef<JobActor.Command> job) {
    long session = node.toServer(ServerInbound::hasStarted).getStarted().getSessionId();
    JobProcess p = node.launcher.started(0).process();
    assertEquals(p.pid(), session);
    return p;
  }

  @Test
  void aJobRunsInItsCgroupAndEndsWithItsStatusThenGoesOnceAcknowledged() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    assertEquals(
        List.of(dir.resolve("cgroup").resolve(JOB).resolve("cgroup.procs")),
        node.launcher.started(0).spec().cgroupProcs());
    assertTrue(Files.exists(node.records.recordFile(JOB)), "recorded before it runs");
    node.cgroups.uses(new CgroupUsage(5_000_000_000L, 1 << 20, -1, 0));
    node.launcher.exit(p, node.statusFile(), "exit 3 2000000 1024");

    JobObitReport obit = node.obit();
    assertEquals(3, obit.getExitStatus());
    assertEquals("", obit.getReason());
    assertEquals(5, obit.getResourcesUsed().getCput(), "the cgroup's figures, not the starter's");
    assertEquals(1 << 20, obit.getResourcesUsed().getMem());
    node.passes(Duration.ofSeconds(1));
    assertEquals(obit, node.obit(), "sent again until acknowledged");
    job.tell(JobActor.Ack.OBIT);
    node.gone();
    assertEquals(
        List.of("create " + JOB, "denyDevices " + JOB, "killAll " + JOB, "remove " + JOB),
        node.cgroups.steps(),
        "stopped before the obit, removed after it");
    assertFalse(Files.exists(node.records.recordFile(JOB)), "the record is gone");
  }

  @Test
  void theStartIsSentAgainUntilAcknowledged() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    node.passes(Duration.ofSeconds(1));
    assertEquals(p.pid(), node.toServer(ServerInbound::hasStarted).getStarted().getSessionId());
    job.tell(JobActor.Ack.STARTED);
    node.passes(Duration.ofSeconds(1));
    node.passes(Duration.ofSeconds(1));
    assertTrue(node.toServerSoon(ServerInbound::hasStarted).isEmpty());
  }

  @Test
  void qsigSendsSignalsButNoContinueToASuspendedJob() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    int usr1 = Signals.parse("USR1");
    int cont = Signals.parse("CONT");
    job.tell(new JobActor.Signal(usr1));
    job.tell(new JobActor.Suspend(true));
    node.toServer(ServerInbound::hasSuspendReport);
    job.tell(new JobActor.Signal(cont));
    job.tell(new JobActor.Signal(usr1));
    node.toServerSoon(m -> false);
    assertEquals(List.of(usr1, usr1), node.launcher.signalsTo(p.pid()));
  }

  @Test
  void aCgroupThatCannotBeMadeRefusesTheJobBeforeAnythingStarts() {
    node.cgroups.refuse("no cpuset here");
    start(FakeNode.run(node.job()));
    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("no cpuset here"), obit.getReason());
    assertEquals(List.of(), node.launcher.starts());
  }

  @Test
  void anUnwellNodeRefusesTheJobAtItsStartToHaveItQueuedAgain() throws IOException {
    // the health check is the one real process here: a script that prints, as a site's would
    Path check =
        Files.writeString(dir.resolve("check"), "#!/bin/sh\necho 'ERROR: /scratch full'\n");
    Files.setPosixFilePermissions(check, PosixFilePermissions.fromString("rwx------"));
    node =
        new FakeNode(
            KIT, dir, new SiteScripts(null, Duration.ofSeconds(10), check, 0, true, false));
    start(FakeNode.run(node.job()));

    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getRequeue(), "it may run on a node that is well");
    assertTrue(
        obit.getReason().contains("the health check of n1 failed: ERROR: /scratch full"),
        obit.getReason());
    assertEquals("ERROR: /scratch full", node.await(MomActor.Health.class, h -> true).error());
    assertEquals(List.of(), node.launcher.starts());
    assertFalse(node.cgroups.steps().contains("create " + JOB), "nothing was made for it");
  }

  @Test
  void aStarterThatCannotStartEndsTheJobAsAFailedStart() {
    node.launcher.refuseStarts("no starter");
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("no starter"), obit.getReason());
    job.tell(JobActor.Ack.OBIT);
    node.gone();
    assertFalse(node.cgroups.exists(JOB), "its cgroup went");
  }

  @Test
  void qdelSendsTermThenKillAfterTheKillDelay() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    job.tell(new JobActor.Kill("deleted by bob", 5));
    node.signalled(p.pid(), TERM); // the kill delay runs from here
    node.passes(Duration.ofSeconds(4));
    node.toServerSoon(m -> false);
    assertEquals(List.of(TERM), node.launcher.signalsTo(p.pid()));
    node.passes(Duration.ofSeconds(1));
    node.signalled(p.pid(), TERM, KILL);
    node.launcher.exit(p, node.statusFile(), null);

    JobObitReport obit = node.obit();
    assertEquals(256 + KILL, obit.getExitStatus(), "killed, with no status line");
  }

  @Test
  void aKillOfASuspendedJobThawsItBeforeTheTermSoThatItSeesIt() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    job.tell(new JobActor.Suspend(true));
    assertTrue(node.toServer(ServerInbound::hasSuspendReport).getSuspendReport().getSuspended());
    assertTrue(node.cgroups.frozen(JOB));
    List<Boolean> frozenAtSignal = new CopyOnWriteArrayList<>();
    node.launcher.onSignal(s -> frozenAtSignal.add(node.cgroups.frozen(JOB)));

    job.tell(new JobActor.Kill("deleted", 5));
    node.toServerSoon(m -> false);
    assertEquals(List.of(TERM), node.launcher.signalsTo(p.pid()));
    assertEquals(List.of(false), frozenAtSignal);
    node.launcher.exit(p, node.statusFile(), "signal 15 0 0");
    assertEquals(256 + TERM, node.obit().getExitStatus());
  }

  @Test
  void aSuspensionAfterTheScriptEndedFreezesNothingAndSaysSo() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    node.launcher.exit(p, node.statusFile(), "exit 0 0 0");
    job.tell(new JobActor.Suspend(true));

    List<ServerInbound> reports = node.toServerSoon(ServerInbound::hasSuspendReport);
    assertEquals(1, reports.size());
    assertFalse(reports.get(0).getSuspendReport().getSuspended());
    assertFalse(node.cgroups.steps().contains("freeze " + JOB));
    assertEquals(0, node.obit().getExitStatus());
  }

  @Test
  void aQdelAfterTheScriptEndedLeavesItsObitAsItWas() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    node.launcher.exit(p, node.statusFile(), "exit 0 0 0");
    job.tell(new JobActor.Kill("deleted", 5));

    JobObitReport obit = node.obit();
    assertEquals(0, obit.getExitStatus());
    assertEquals("", obit.getReason());
    assertEquals(List.of(), node.launcher.signalsTo(p.pid()), "nothing left to signal");
  }

  @Test
  void theScriptEndingWhileFrozenThawsTheJobToEndIt() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    job.tell(new JobActor.Suspend(true));
    node.toServer(ServerInbound::hasSuspendReport);
    node.launcher.exit(p, node.statusFile(), "signal 9 0 0");

    assertEquals(256 + KILL, node.obit().getExitStatus());
    assertFalse(node.cgroups.frozen(JOB));
    assertTrue(node.cgroups.steps().contains("thaw " + JOB));
  }

  @Test
  void theWalltimeStandsStillWhileTheJobIsSuspended() throws IOException {
    ActorRef<JobActor.Command> job =
        start(
            FakeNode.run(
                node.job()
                    .setResources(dev.berth.proto.ResourceRequest.newBuilder().setWalltime(100))));
    JobProcess p = running(job);
    node.passes(Duration.ofSeconds(60));
    job.tell(new JobActor.Suspend(true));
    node.toServer(ServerInbound::hasSuspendReport);
    node.passes(Duration.ofSeconds(300));
    job.tell(new JobActor.Suspend(false));
    node.toServer(ServerInbound::hasSuspendReport);
    node.passes(Duration.ofSeconds(39));
    node.toServerSoon(m -> false);
    assertEquals(List.of(), node.launcher.signalsTo(p.pid()), "40 s of its walltime are left");

    node.passes(Duration.ofSeconds(1));
    node.signalled(p.pid(), TERM);
    assertTrue(Files.readString(node.stderr()).contains("=>> PBS: job killed: walltime 100"));
    node.launcher.exit(p, node.statusFile(), "signal 15 0 0");
    assertEquals(ExitStatus.OVER_WALLTIME.code(), node.obit().getExitStatus());
  }

  @Test
  void aRecordWithItsObitReportsItAgainAfterARestart() throws IOException {
    RunJob run = FakeNode.run(node.job());
    node.records.create(run);
    JobObitReport obit =
        JobObitReport.newBuilder().setJobId(JOB).setNode(FakeNode.HERE).setExitStatus(7).build();
    node.records.recordObit(JOB, obit);

    ActorRef<JobActor.Command> job = recover();
    assertEquals(obit, node.obit());
    assertEquals(List.of(), node.launcher.starts(), "nothing runs again");
    job.tell(JobActor.Ack.OBIT);
    node.gone();
  }

  @Test
  void aSessionThatOutlivedItsMomIsWatchedAgain() throws IOException {
    RunJob run = FakeNode.run(node.job());
    node.records.create(run);
    JobProcess p = node.launcher.survivor(node.clock.millis());
    node.records.recordProcess(JOB, p.pid(), p.identity(), p.launchedMillis());

    ActorRef<JobActor.Command> job = recover();
    assertEquals(p.pid(), node.toServer(ServerInbound::hasStarted).getStarted().getSessionId());
    job.tell(new JobActor.Kill("deleted", 5));
    node.toServerSoon(m -> false);
    assertEquals(List.of(TERM), node.launcher.signalsTo(p.pid()));
    node.launcher.exit(p, node.statusFile(), "signal 15 0 0");
    assertEquals(256 + TERM, node.obit().getExitStatus());
  }

  @Test
  void aSessionThatEndedWhileItsMomWasAwayEndsWithTheStatusItLeft() throws IOException {
    RunJob run = FakeNode.run(node.job());
    node.records.create(run);
    node.records.recordProcess(JOB, 1L << 41, 1, node.clock.millis());
    Files.writeString(node.statusFile(), "exit 4 0 0\n");

    recover();
    JobObitReport obit = node.obit();
    assertEquals(4, obit.getExitStatus());
    assertTrue(node.toServerSoon(ServerInbound::hasStarted).isEmpty(), "no start reported");
  }

  @Test
  void aSessionThatEndedWithoutAStatusWhileItsMomWasAwayIsReportedLost() throws IOException {
    RunJob run = FakeNode.run(node.job());
    node.records.create(run);
    node.records.recordProcess(JOB, 1L << 41, 1, node.clock.millis());

    recover();
    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.LOST.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("could not watch"), obit.getReason());
  }

  @Test
  void aJobItsMomLeftWhilePreparingItDidNotStart() throws IOException {
    node.records.create(FakeNode.run(node.job()));

    recover();
    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("restarted while preparing"), obit.getReason());
    assertFalse(obit.getRequeue());
  }

  @Test
  void aRecordCutShortInItsProcessEntryIsAJobThatDidNotStart() throws IOException {
    node.records.create(FakeNode.run(node.job()));
    Path file = node.records.recordFile(JOB);
    long before = Files.size(file);
    node.records.recordProcess(JOB, 1L << 41, 1, node.clock.millis());
    try (FileChannel f = FileChannel.open(file, StandardOpenOption.WRITE)) {
      f.truncate(Files.size(file) - 3); // the mom died writing it
    }
    assertTrue(Files.size(file) > before);

    recover();
    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("restarted while preparing"), obit.getReason());
  }

  @Test
  void anUnreadableStarterStatusIsAFailedStartThatSaysSo() throws IOException {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job()));
    JobProcess p = running(job);
    node.launcher.exit(p, node.statusFile(), "exit \u0000garbage");
    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("unreadable starter status"), obit.getReason());
  }

  @Test
  void aSisterSilentAtTheJoinIsNamedAndTheJobDoesNotStart() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job("n2", "n3")));
    node.toPeer("n2", MomInbound::hasJoin);
    node.toPeer("n3", MomInbound::hasJoin);
    job.tell(new JobActor.Joined(joined("n3")));
    node.passes(SistersHook.JOIN_TIMEOUT);
    node.toPeer("n2", MomInbound::hasKill);
    node.toPeer("n3", MomInbound::hasKill);
    node.passes(SistersHook.DONE_TIMEOUT);

    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getReason().contains("[n2] did not answer JOIN_JOB"), obit.getReason());
    assertTrue(obit.getReason().contains("did not confirm the cleanup"), obit.getReason());
    assertEquals(List.of(), node.launcher.starts());
  }

  @Test
  void aSisterThatMayJoinLaterHasTheJobQueuedAgainOnceAllLetItGo() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job("n2")));
    node.toPeer("n2", MomInbound::hasJoin);
    job.tell(new JobActor.Joined(refusal("n2", true)));
    node.toPeer("n2", MomInbound::hasKill);
    assertTrue(node.toServerSoon(ServerInbound::hasObit).isEmpty(), "the sister has not answered");
    job.tell(new JobActor.SisterReport(done("n2", 0)));

    JobObitReport obit = node.obit();
    assertTrue(obit.getRequeue());
    assertEquals(List.of(), node.launcher.starts());
  }

  @Test
  void aSisterLostWhileTheJobRunsIsNamedInTheObitAfterTheKill() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job("n2")));
    node.toPeer("n2", MomInbound::hasJoin);
    job.tell(new JobActor.Joined(joined("n2")));
    JobProcess p = running(job);
    job.tell(new JobActor.Kill("node n2 is down", 5)); // what the server sends
    node.toPeer("n2", MomInbound::hasKill);
    node.launcher.exit(p, node.statusFile(), "signal 15 0 0");
    node.toPeer("n2", MomInbound::hasKill);
    node.passes(SistersHook.DONE_TIMEOUT);

    JobObitReport obit = node.obit();
    assertEquals(256 + TERM, obit.getExitStatus());
    assertTrue(obit.getReason().contains("[n2] did not confirm"), obit.getReason());
  }

  @Test
  void aSisterLostAfterTheScriptEndedLeavesTheExitStatusAndIsNamed() {
    ActorRef<JobActor.Command> job = start(FakeNode.run(node.job("n2", "n3")));
    job.tell(new JobActor.Joined(joined("n2")));
    job.tell(new JobActor.Joined(joined("n3")));
    JobProcess p = running(job);
    node.launcher.exit(p, node.statusFile(), "exit 0 1000000 0");
    node.toPeer("n3", MomInbound::hasKill);
    job.tell(new JobActor.SisterReport(done("n3", 5)));
    node.passes(Duration.ofSeconds(1));
    node.toPeer("n2", MomInbound::hasKill);
    assertTrue(
        node.within(
                Duration.ofMillis(200),
                MomActor.ToPeer.class,
                m -> m.node().equals("n3") && m.message().hasKill())
            .isEmpty(),
        "n3 is done");
    node.passes(SistersHook.DONE_TIMEOUT);

    JobObitReport obit = node.obit();
    assertEquals(0, obit.getExitStatus());
    assertEquals(5, obit.getResourcesUsed().getCput(), "n3's usage joins");
    assertTrue(obit.getReason().contains("[n2] did not confirm"), obit.getReason());
  }

  @Test
  void aRestartAfterTheScriptEndedStillWaitsForTheSisters() throws IOException {
    RunJob run = FakeNode.run(node.job("n2"));
    node.records.create(run);
    node.records.recordProcess(JOB, 1L << 41, 1, node.clock.millis());
    Files.writeString(node.statusFile(), "exit 2 0 0\n");

    ActorRef<JobActor.Command> job = recover();
    node.toPeer("n2", MomInbound::hasKill);
    assertTrue(node.toServerSoon(ServerInbound::hasObit).isEmpty());
    job.tell(new JobActor.SisterReport(done("n2", 0)));
    assertEquals(2, node.obit().getExitStatus());
  }

  private ActorRef<JobActor.Command> recover() throws IOException {
    JobRecords.Scan scan = node.records.scan();
    assertEquals(1, scan.records().size(), "unreadable: " + scan.unreadable());
    return KIT.spawn(JobActor.recover(node.services, scan.records().get(0)));
  }

  private static JoinJobReply joined(String sister) {
    return JoinJobReply.newBuilder().setJobId(JOB).setNode(sister).setOk(true).build();
  }

  private static JoinJobReply refusal(String sister, boolean retry) {
    return JoinJobReply.newBuilder()
        .setJobId(JOB)
        .setNode(sister)
        .setError("unwell")
        .setRetry(retry)
        .build();
  }

  private static SisterDone done(String sister, long cput) {
    return SisterDone.newBuilder()
        .setJobId(JOB)
        .setNode(sister)
        .setResourcesUsed(ResourcesUsed.newBuilder().setCput(cput))
        .build();
  }
}
