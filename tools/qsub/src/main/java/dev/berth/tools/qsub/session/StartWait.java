package dev.berth.tools.qsub.session;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.AttachJob;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * qsub -I between the submission and the session: asks the server whether the job has started, soon
 * at first and then once a second, until the reply says where its terminal is. Ctrl-C or SIGTERM
 * asks, in Torque's words, whether to give up: yes (or no answer within a minute) deletes the job
 * and ends qsub with 0; Slurm's commands delete it without asking ({@link Voice}).
 */
final class StartWait {
  private static final String RUNNING = "R";

  private final String jobId;
  private final ServerLink server;
  private final Terminal terminal;
  private final PrintStream out;
  private final PrintStream err;
  private final Voice voice;
  private final InteractiveSession.Timing timing;
  private boolean waited;

  StartWait(
      String jobId,
      ServerLink server,
      Terminal terminal,
      PrintStream out,
      PrintStream err,
      Voice voice,
      InteractiveSession.Timing timing) {
    this.jobId = jobId;
    this.server = server;
    this.terminal = terminal;
    this.out = out;
    this.err = err;
    this.voice = voice;
    this.timing = timing;
  }

  /** Whether the job was not started within the voice's patience, and the user was told. */
  boolean waited() {
    return waited;
  }

  /** The reply that says where the job's terminal is, once it has started. */
  AttachReply await() throws Ended {
    BlockingQueue<Boolean> interrupts = new LinkedBlockingQueue<>();
    Duration pause = timing.firstPoll();
    long patientUntil = System.nanoTime() + timing.patience().toNanos();
    try (Terminal.Handle handler = terminal.onInterrupt(() -> interrupts.offer(Boolean.TRUE))) {
      while (true) {
        AttachReply reply = attach();
        if (reply.getState().equals(RUNNING) && !reply.getAddress().isEmpty()) {
          return reply;
        }
        if (!waited && System.nanoTime() - patientUntil >= 0) {
          waited = true;
          voice.waiting(jobId, out, err);
        }
        if (interrupts.poll(pause.toMillis(), TimeUnit.MILLISECONDS) != null) {
          if (!voice.asksBeforeGivingUp()) {
            delete();
          }
          askWhetherToQuit();
        }
        Duration doubled = pause.multipliedBy(2);
        pause = doubled.compareTo(timing.maxPoll()) < 0 ? doubled : timing.maxPoll();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Ended(1);
    }
  }

  private AttachReply attach() throws Ended {
    Response response =
        server.call(Request.newBuilder().setAttach(AttachJob.newBuilder().setJobId(jobId)));
    switch (response.getBodyCase()) {
      case ATTACH -> {
        return response.getAttach();
      }
      case ERROR -> {
        Error.Code code = response.getError().getCode();
        if (code == Error.Code.UNKNOWN_JOB) {
          err.println(voice.program() + ": job " + jobId + " apparently deleted");
        } else {
          err.println(
              voice.program() + ": " + ControlCharacters.escape(response.getError().getMessage()));
          if (code == Error.Code.SYSTEM) { // it runs where no session can be had
            server.abandon(jobId);
          }
        }
      }
      default ->
          err.println(
              voice.program() + ": unexpected reply from the server: " + response.getBodyCase());
    }
    err.flush();
    throw new Ended(1);
  }

  /**
   * Torque's {@code catchint}: y deletes the job, no answer in time too, anything else waits on.
   */
  private void askWhetherToQuit() throws Ended {
    out.print("Do you wish to terminate the job and exit (y|[n])? ");
    out.flush();
    Optional<String> answer = terminal.readLine(timing.answer());
    if (answer.isEmpty()) {
      out.println("Timeout -- deleting job");
      delete();
    }
    String a = answer.get().strip();
    if (a.startsWith("y") || a.startsWith("Y")) {
      delete();
    }
  }

  private void delete() throws Ended {
    int status = voice.gaveUp(jobId, out, err);
    Response response = server.delete(jobId);
    if (response.hasError() && response.getError().getCode() != Error.Code.UNKNOWN_JOB) {
      err.println(
          voice.program()
              + ": cannot delete job "
              + jobId
              + ": "
              + ControlCharacters.escape(response.getError().getMessage()));
      err.flush();
      throw new Ended(1);
    }
    throw new Ended(status);
  }
}
