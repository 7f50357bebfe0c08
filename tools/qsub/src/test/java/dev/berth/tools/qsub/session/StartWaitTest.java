package dev.berth.tools.qsub.session;

import static dev.berth.tools.qsub.session.InteractiveSessions.JOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** qsub -I while its job waits: asking the server, Torque's messages, and giving up on Ctrl-C. */
class StartWaitTest {
  private final InteractiveSessions session = InteractiveSessions.atTerminal();

  /** Answers AttachJob with {@code states} in turn (the last one again), DeleteJob with ack. */
  private static ScriptedServer waiting(Function<Integer, Response> attach) {
    AtomicInteger asked = new AtomicInteger();
    return new ScriptedServer(
        r -> r.hasDelete() ? ScriptedServer.ack() : attach.apply(asked.getAndIncrement()));
  }

  @Test
  void waitsWhileTheJobIsQueuedAndUntilItsMomTakesTheSession() throws Exception {
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              peer.exit(0);
            })) {
      ScriptedServer server =
          waiting(
              n ->
                  switch (n) {
                    case 0 -> ScriptedServer.state("Q");
                    case 1 -> ScriptedServer.state("H");
                    case 2 -> ScriptedServer.state("R"); // started, its mom not yet ready
                    default ->
                        InteractiveSessions.running(mom.address(), StandInPort.caCertificates());
                  });
      assertEquals(0, session.run(server), session.stderr());
      assertEquals(4, server.attaches().size());
      assertEquals(JOB, server.attaches().get(0).getAttach().getJobId());
      assertTrue(
          session.stdout().startsWith("qsub: waiting for job 7.srv to start\n"), session.stdout());
      assertFalse(session.terminal.listensForInterrupts(), "Ctrl-C is the job's once it runs");
    }
  }

  @Test
  void aJobTheServerDoesNotKnowWasDeleted() {
    ScriptedServer server =
        waiting(
            n ->
                n == 0
                    ? ScriptedServer.state("Q")
                    : ScriptedServer.error(Error.Code.UNKNOWN_JOB, "Unknown Job Id 7.srv"));
    assertEquals(1, session.run(server));
    assertEquals("qsub: waiting for job 7.srv to start\n", session.stdout());
    assertEquals("qsub: job 7.srv apparently deleted\n", session.stderr());
  }

  @Test
  void aJobOnANodeThatTakesNoSessionsIsDeleted() {
    ScriptedServer server =
        waiting(
            n ->
                ScriptedServer.error(
                    Error.Code.SYSTEM,
                    "node n01 runs job 7.srv but its mom takes no interactive sessions"));
    assertEquals(1, session.run(server));
    assertEquals(
        "qsub: node n01 runs job 7.srv but its mom takes no interactive sessions\n"
            + "qsub: deleting job 7.srv, which cannot start without its terminal\n",
        session.stderr());
    assertEquals(1, server.deletes().size());
  }

  @Test
  void otherErrorsAreShownInTheServersWords() {
    ScriptedServer server =
        waiting(
            n ->
                ScriptedServer.error(
                    Error.Code.BAD_STATE,
                    "job 7.srv ended before its session began: could not start on n01"));
    assertEquals(1, session.run(server));
    assertEquals(
        "qsub: job 7.srv ended before its session began: could not start on n01\n",
        session.stderr());
  }

  @Test
  void ctrlCAndYesDeletesTheJobAndExitsZero() {
    session.terminal.answer("y");
    ScriptedServer server =
        waiting(
            n -> {
              session.terminal.interrupt();
              return ScriptedServer.state("Q");
            });
    assertEquals(0, session.run(server));
    assertEquals(
        "qsub: waiting for job 7.srv to start\n"
            + "Do you wish to terminate the job and exit (y|[n])? Job 7.srv is being deleted\n",
        session.stdout());
    assertEquals(1, server.deletes().size());
    assertEquals(JOB, server.deletes().get(0).getDelete().getJobId());
    assertEquals("", session.stderr());
  }

  @Test
  void sallocSaysItWaitsAndIsGrantedTheAllocationOnStandardError() throws Exception {
    session.slurm("salloc", true);
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              peer.output("hi\n");
              peer.exit(4);
            })) {
      ScriptedServer server =
          waiting(
              n ->
                  n == 0
                      ? ScriptedServer.state("Q")
                      : InteractiveSessions.running(mom.address(), StandInPort.caCertificates()));
      assertEquals(4, session.run(server), session.stderr());
    }
    assertEquals("hi\n", session.stdout(), "only the job's own output");
    assertEquals(
        "salloc: Pending job allocation 7\n"
            + "salloc: job 7 queued and waiting for resources\n"
            + "salloc: job 7 has been allocated resources\n"
            + "salloc: Granted job allocation 7\n"
            + "salloc: Relinquishing job allocation 7\n",
        session.stderr());
  }

  @Test
  void quietSallocSaysNothingOfItsAllocation() throws Exception {
    session.slurm("salloc", true).voice = Voice.slurm("salloc", true, true);
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              peer.exit(0);
            })) {
      ScriptedServer server =
          waiting(
              n ->
                  n == 0
                      ? ScriptedServer.state("Q")
                      : InteractiveSessions.running(mom.address(), StandInPort.caCertificates()));
      assertEquals(0, session.run(server), session.stderr());
    }
    assertEquals("", session.stderr(), "-Q: not even that it waited");
  }

  @Test
  void slurmsCommandsGiveUpAtCtrlCWithoutAsking() {
    session.slurm("srun", false);
    ScriptedServer server =
        waiting(
            n -> {
              session.terminal.interrupt();
              return ScriptedServer.state("Q");
            });
    assertEquals(1, session.run(server));
    assertEquals("", session.stdout());
    assertEquals(
        "srun: job 7 queued and waiting for resources\n"
            + "srun: Job allocation 7 has been revoked.\n",
        session.stderr());
    assertEquals(1, server.deletes().size());
  }

  @Test
  void anyOtherAnswerGoesOnWaiting() {
    session.terminal.answer("n").answer("").answer("maybe");
    ScriptedServer server =
        waiting(
            n -> {
              if (n < 3) {
                session.terminal.interrupt();
                return ScriptedServer.state("Q");
              }
              return ScriptedServer.error(Error.Code.UNKNOWN_JOB, "Unknown Job Id 7.srv");
            });
    assertEquals(1, session.run(server));
    assertEquals(3, session.terminal.questions);
    assertTrue(server.deletes().isEmpty());
    assertEquals("qsub: job 7.srv apparently deleted\n", session.stderr());
  }

  @Test
  void noAnswerWithinTheTimeDeletesTheJob() {
    session.terminal.answer(FakeTerminal.SILENCE);
    ScriptedServer server =
        waiting(
            n -> {
              session.terminal.interrupt();
              return ScriptedServer.state("W");
            });
    assertEquals(0, session.run(server));
    assertTrue(
        session
            .stdout()
            .endsWith(
                "Do you wish to terminate the job and exit (y|[n])? Timeout -- deleting job\n"
                    + "Job 7.srv is being deleted\n"),
        session.stdout());
    assertEquals(1, server.deletes().size());
  }

  @Test
  void aJobThatCannotBeDeletedIsReported() {
    session.terminal.answer("Y");
    ScriptedServer server =
        new ScriptedServer(
            r -> {
              if (r.hasDelete()) {
                return ScriptedServer.error(
                    Error.Code.PERMISSION, "job 7.srv belongs to bob: only its owner");
              }
              session.terminal.interrupt();
              return ScriptedServer.state("Q");
            });
    assertEquals(1, session.run(server));
    assertEquals(
        "qsub: cannot delete job 7.srv: job 7.srv belongs to bob: only its owner\n",
        session.stderr());
  }

  @Test
  void aBrokenConnectionIsOpenedAgain() {
    ScriptedServer second =
        waiting(n -> ScriptedServer.error(Error.Code.UNKNOWN_JOB, "Unknown Job Id 7.srv"));
    ScriptedServer first =
        new ScriptedServer(r -> ScriptedServer.state("Q")) {
          @Override
          public Response call(Request.Builder request) throws ServerUnavailableException {
            if (requests.size() == 2) {
              throw new ServerUnavailableException(
                  Path.of("/run/berth/server.sock"), new IOException("Connection reset"));
            }
            return super.call(request);
          }
        };
    assertEquals(1, session.run(first, () -> second));
    assertEquals(1, second.attaches().size());
    assertTrue(second.closed, "the connection qsub opened is closed");
    assertFalse(first.closed, "the one it was given is its caller's to close");
    assertEquals("qsub: job 7.srv apparently deleted\n", session.stderr());
  }

  @Test
  void aServerThatCannotBeReachedAgainEndsQsub() {
    ScriptedServer broken =
        new ScriptedServer(r -> ScriptedServer.state("Q")) {
          @Override
          public Response call(Request.Builder request) throws ServerUnavailableException {
            throw new ServerUnavailableException(
                Path.of("/run/berth/server.sock"), new IOException("Connection refused"));
          }
        };
    int status =
        session.run(
            broken,
            () -> {
              throw new ServerUnavailableException(
                  Path.of("/run/berth/server.sock"), new IOException("Connection refused"));
            });
    assertEquals(1, status);
    assertTrue(
        session.stderr().startsWith("qsub: cannot talk to the Berth server at"), session.stderr());
  }
}
