package dev.berth.mom.lifecycle;

import static dev.berth.mom.lifecycle.FakeNode.JOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.SiteScripts;
import dev.berth.mom.os.FakeLauncher;
import dev.berth.mom.os.JobProcess;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJobReply;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ServerInbound;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The site's prologues and epilogues around a job on its mother superior, with the OS faked: the
 * scripts are files the test writes, run as sessions of the fake launcher that the test ends with
 * the status it likes. Torque's rules for a prologue's failure, its time limit, an epilogue's
 * failure, and a sister lost while a prologue runs.
 */
class SiteScriptHookTest {
  private static final ActorTestKit KIT = ActorTestKit.create(ManualTime.config());
  private static final Duration ALARM = Duration.ofSeconds(30);

  @TempDir Path dir;
  private FakeNode node;
  private Path site;

  @BeforeEach
  void node() throws IOException {
    site = Files.createDirectories(dir.resolve("site"));
    node = new FakeNode(KIT, dir, new SiteScripts(site, ALARM, null, 0, false, false));
  }

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private ActorRef<JobActor.Command> start(String... sisters) {
    return KIT.spawn(JobActor.start(node.services, FakeNode.run(node.job(sisters))));
  }

  /** The site has a script {@code name}; the fake launcher runs it whoever wrote it. */
  private void script(String name) throws IOException {
    Files.writeString(site.resolve(name), "#!/bin/sh\n");
  }

  /** The site script {@code name} ends as its starter's {@code status} line says. */
  private FakeLauncher.Started ends(String name, String status) {
    FakeLauncher.Started s = node.siteScript(name);
    node.launcher.exit(s.process(), s.spec().statusFile(), status);
    return s;
  }

  private boolean scriptStarted() {
    return node.launcher.starts().stream().anyMatch(FakeNode::jobScript);
  }

  @Test
  void aPrologueThatExitsOneAbortsTheJobAfterTheEpilogues() throws IOException {
    script("prologue");
    script("epilogue");
    start();
    ends("prologue", "exit 1 0 0");
    FakeLauncher.Started epilogue = ends("epilogue", "exit 0 0 0");

    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.PROLOGUE_ABORTED.code(), obit.getExitStatus());
    assertFalse(obit.getRequeue(), "aborted, not queued again");
    assertTrue(obit.getReason().contains("prologue exited with status 1"), obit.getReason());
    assertEquals(
        Integer.toString(ExitStatus.PROLOGUE_ABORTED.code()),
        epilogue.spec().command().get(10),
        "the epilogue hears how the job ended");
    assertFalse(scriptStarted());
  }

  @Test
  void aPrologueThatFailsOtherwiseHasTheJobQueuedAgain() throws IOException {
    script("prologue");
    script("prologue.user");
    start();
    ends("prologue", "exit 2 0 0");

    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getRequeue());
    assertTrue(obit.getReason().contains("prologue exited with status 2"), obit.getReason());
    assertEquals(1, node.launcher.starts().size(), "no script runs after the one that failed");
  }

  @Test
  void aPrologueThatOutrunsItsTimeIsKilledAndTheJobQueuedAgain() throws IOException {
    script("prologue");
    start();
    JobProcess prologue = node.siteScript("prologue").process();
    node.passes(ALARM.minusSeconds(1));
    node.toServerSoon(m -> false);
    assertEquals(List.of(), node.launcher.signalsTo(prologue.pid()));
    node.passes(Duration.ofSeconds(1));
    node.signalled(prologue.pid(), Signals.SIGKILL);
    ends("prologue", "signal 9 0 0");

    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertTrue(obit.getRequeue());
    assertTrue(obit.getReason().contains("prologue timed out after 30 s"), obit.getReason());
    assertFalse(scriptStarted());
  }

  @Test
  void anEpilogueThatFailsChangesNothingOfTheJobsEnd() throws IOException {
    script("epilogue");
    start();
    JobProcess p = node.started(FakeNode::jobScript).process();
    node.launcher.exit(p, node.statusFile(), "exit 3 0 0");
    FakeLauncher.Started epilogue = ends("epilogue", "exit 5 0 0");

    JobObitReport obit = node.obit();
    assertEquals(3, obit.getExitStatus());
    assertEquals("", obit.getReason());
    assertFalse(obit.getRequeue());
    List<String> args = epilogue.spec().command();
    assertEquals(Long.toString(p.pid()), args.get(5), "the session it ends");
    assertEquals("3", args.get(10), "the job's exit status");
  }

  @Test
  void aSisterLostWhileThePrologueRunsEndsTheJobOnceItIsDone() throws IOException {
    script("prologue");
    ActorRef<JobActor.Command> job = start("n2");
    node.toPeer("n2", MomInbound::hasJoin);
    job.tell(
        new JobActor.Joined(
            JoinJobReply.newBuilder().setJobId(JOB).setNode("n2").setOk(true).build()));
    FakeLauncher.Started prologue = node.siteScript("prologue");
    job.tell(new JobActor.Kill("node n2 is down", 5)); // what the server sends
    node.toServerSoon(m -> false);
    assertEquals(List.of(), node.launcher.signalsTo(prologue.process().pid()), "left to finish");
    node.launcher.exit(prologue.process(), prologue.spec().statusFile(), "exit 0 0 0");
    node.toPeer("n2", MomInbound::hasKill);
    assertTrue(node.toServerSoon(ServerInbound::hasObit).isEmpty(), "waits for the sister");
    node.passes(SistersHook.DONE_TIMEOUT);

    JobObitReport obit = node.obit();
    assertEquals(ExitStatus.EXEC_FAILED.code(), obit.getExitStatus());
    assertFalse(obit.getRequeue());
    assertTrue(
        obit.getReason().contains("killed before it started: node n2 is down"), obit.getReason());
    assertTrue(obit.getReason().contains("[n2] did not confirm the cleanup"), obit.getReason());
    assertFalse(scriptStarted());
  }
}
