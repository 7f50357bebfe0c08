package dev.berth.mom.sister;

import static dev.berth.mom.lifecycle.FakeNode.JOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.MomActor;
import dev.berth.mom.lifecycle.FakeNode;
import dev.berth.mom.os.FakeLauncher;
import dev.berth.mom.os.cgroup.CgroupUsage;
import dev.berth.proto.JoinJob;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SisterDone;
import dev.berth.proto.SpawnTask;
import dev.berth.proto.TaskObit;
import dev.berth.proto.TaskStarted;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sister's part of a job with the OS faked: joined, refused (leaving nothing behind), suspended,
 * killed, and found again after a restart.
 */
class SisterJobActorTest {
  private static final ActorTestKit KIT = ActorTestKit.create(ManualTime.config());
  private static final String MS = "ms";

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

  private JoinJob join() {
    return JoinJob.newBuilder()
        .setJob(node.sisterJob(MS))
        .setMotherSuperior(MS)
        .setKillDelay(5)
        .build();
  }

  private ActorRef<SisterJobActor.Command> joined() {
    ActorRef<SisterJobActor.Command> sister = KIT.spawn(SisterJobActor.join(node.services, join()));
    JoinJobReply reply = node.toPeer(MS, MomInbound::hasJoinReply).getJoinReply();
    assertTrue(reply.getOk(), reply.getError());
    return sister;
  }

  private static KillJob kill() {
    return KillJob.newBuilder().setJobId(JOB).setReason("the job ended").setFrom(MS).build();
  }

  @Test
  void aJoinedJobIsClearedAwayOnKillAndTheMotherSuperiorHearsWhatItUsed() {
    ActorRef<SisterJobActor.Command> sister = joined();
    assertTrue(node.cgroups.exists(JOB));
    assertTrue(Files.exists(node.records.recordFile(JOB)));
    node.cgroups.uses(new CgroupUsage(3_000_000_000L, 2 << 20, -1, 1));

    sister.tell(new SisterJobActor.Kill(kill()));
    SisterDone done = node.toPeer(MS, MomInbound::hasSisterDone).getSisterDone();
    assertEquals(3, done.getResourcesUsed().getCput());
    assertEquals(1, done.getResourcesUsed().getOomKills());
    node.await(MomActor.SisterGone.class, g -> g.jobId().equals(JOB));
    assertFalse(node.cgroups.exists(JOB));
    assertFalse(Files.exists(node.records.recordFile(JOB)));
  }

  @Test
  void aRepeatedJoinIsAnsweredAgain() {
    ActorRef<SisterJobActor.Command> sister = joined();
    sister.tell(new SisterJobActor.Join(join()));
    assertTrue(node.toPeer(MS, MomInbound::hasJoinReply).getJoinReply().getOk());
  }

  @Test
  void aJoinRefusedForItsCgroupLeavesNothingOfTheJobBehind() {
    node.cgroups.refuse("no memory controller");
    KIT.spawn(SisterJobActor.join(node.services, join()));
    JoinJobReply reply = node.toPeer(MS, MomInbound::hasJoinReply).getJoinReply();
    assertFalse(reply.getOk());
    assertFalse(reply.getRetry(), "a cgroup that cannot be made will not be made later");
    assertTrue(reply.getError().contains("no memory controller"), reply.getError());
    node.await(MomActor.SisterGone.class, g -> g.jobId().equals(JOB));
    assertFalse(Files.exists(node.records.recordFile(JOB)), "no record is left");
    assertFalse(Files.exists(node.config.tmpBase().resolve(JOB)), "no TMPDIR is left");
  }

  @Test
  void aSuspendedSisterIsFrozenAndThawedBeforeItsTasksAreEnded() {
    ActorRef<SisterJobActor.Command> sister = joined();
    sister.tell(new SisterJobActor.Suspend(true));
    assertTrue(node.toServer(ServerInbound::hasSuspendReport).getSuspendReport().getSuspended());
    assertTrue(node.cgroups.frozen(JOB));

    sister.tell(new SisterJobActor.Kill(kill()));
    node.toPeer(MS, MomInbound::hasSisterDone);
    List<String> steps = node.cgroups.steps();
    int thawed = steps.indexOf("thaw " + JOB);
    assertTrue(
        thawed >= 0 && thawed < steps.indexOf("killAll " + JOB), "thawed, then ended: " + steps);
  }

  @Test
  void aSuspensionWhileTheTasksEndIsAnsweredNotSuspended() {
    ActorRef<SisterJobActor.Command> sister = joined();
    sister.tell(new SisterJobActor.Kill(kill()));
    sister.tell(new SisterJobActor.Suspend(true));
    assertFalse(node.toServer(ServerInbound::hasSuspendReport).getSuspendReport().getSuspended());
    node.toPeer(MS, MomInbound::hasSisterDone);
    assertFalse(node.cgroups.steps().contains("freeze " + JOB));
  }

  @Test
  void aRestartedSisterFindsItsJobAgainAndClearsItAwayOnKill() throws IOException {
    node.records.createSister(join());
    node.cgroups.create(JOB, List.of(0), 0);
    ActorRef<SisterJobActor.Command> sister =
        KIT.spawn(SisterJobActor.recover(node.services, node.records.scan().records().get(0)));

    sister.tell(new SisterJobActor.Kill(kill()));
    node.toPeer(MS, MomInbound::hasSisterDone);
    node.await(MomActor.SisterGone.class, g -> g.jobId().equals(JOB));
    assertFalse(node.cgroups.exists(JOB), "the cgroup it found again is gone");
    assertTrue(
        node.within(
                java.time.Duration.ofMillis(200),
                MomActor.ToPeer.class,
                m -> m.message().hasJoinReply())
            .isEmpty(),
        "a restart answers no join");
  }

  /**
   * A task whose record cannot be written (out of file descriptors, say) once it has started is
   * killed, and it ends as any task does: the mother superior hears it started and then its obit,
   * saying why, so that whoever waits for the task (pbsdsh, an MPI launcher) is answered.
   */
  @Test
  void aTaskThatCannotBeRecordedIsKilledAndItsObitSaysWhy() throws IOException {
    ActorRef<SisterJobActor.Command> sister = joined();
    Files.createDirectories(node.records.directory(JOB).resolve("task-1")); // no file there
    sister.tell(
        new SisterJobActor.Tasks(
            MomInbound.newBuilder()
                .setSpawn(
                    SpawnTask.newBuilder()
                        .setJobId(JOB)
                        .setTaskId(1)
                        .addArgv("/bin/true")
                        .setFrom(MS))
                .build()));
    TaskStarted started = node.toPeer(MS, MomInbound::hasTaskStarted).getTaskStarted();
    assertEquals("", started.getError(), "it did start");
    node.signalled(started.getPid(), Signals.SIGKILL);

    FakeLauncher.Started task = node.started(s -> s.process().pid() == started.getPid());
    node.launcher.exit(
        task.process(), node.records.taskStatusFile(JOB, 1), "signal " + Signals.SIGKILL + " 0 0");
    TaskObit obit = node.toPeer(MS, MomInbound::hasTaskObit).getTaskObit();
    assertEquals(ExitStatus.killedBy(Signals.SIGKILL), obit.getExitStatus());
    assertTrue(
        obit.getError().startsWith("killed at its start on n1: cannot record the task ("),
        obit.getError());
  }
}
