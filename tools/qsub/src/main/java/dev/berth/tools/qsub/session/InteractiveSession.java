package dev.berth.tools.qsub.session;

import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.AttachReply;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.WindowSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * qsub -I (and salloc, and srun outside a job) once the job is submitted: waits for it to start
 * ({@link StartWait}), connects to its mother superior's terminal port ({@link MomTerminal}) and
 * holds the session there ({@link TerminalSession}). Says what happens in its {@link Voice}'s
 * words; the exit status is the job's shell's or command's, the voice's when the user gave up
 * waiting and the job was deleted (qsub's 0), 1 when something failed.
 */
public final class InteractiveSession {
  /** Opens a new connection to the server, when the one the job was submitted on broke. */
  @FunctionalInterface
  public interface Reconnect {
    ServerConnection connect() throws ServerUnavailableException;
  }

  /**
   * How long to wait: between the first questions to the server (doubling up to {@code maxPoll}),
   * for an answer to "terminate the job?", and for the terminal port to connect and shake hands.
   */
  record Timing(
      Duration firstPoll, Duration maxPoll, Duration patience, Duration answer, Duration connect) {
    /**
     * Asked soon at first: most jobs that start at all start within a few hundred ms; a job not
     * started in a second is waiting for room (Slurm's commands say so).
     */
    static final Timing DEFAULT =
        new Timing(
            Duration.ofMillis(20),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(60),
            Duration.ofSeconds(10));
  }

  private final String jobId;
  private final InputStream in;
  private final PrintStream out;
  private final PrintStream err;
  private final String term;
  private final Terminal terminal;
  private final Voice voice;
  private final Timing timing;

  /**
   * @param jobId the job as the server named it
   * @param term the TERM the job's terminal gets
   * @param terminal the user's terminal, or {@link Terminal#NONE}
   * @param voice whose words the session speaks in
   */
  public InteractiveSession(
      String jobId,
      InputStream in,
      PrintStream out,
      PrintStream err,
      String term,
      Terminal terminal,
      Voice voice) {
    this(jobId, in, out, err, term, terminal, voice, Timing.DEFAULT);
  }

  InteractiveSession(
      String jobId,
      InputStream in,
      PrintStream out,
      PrintStream err,
      String term,
      Terminal terminal,
      Voice voice,
      Timing timing) {
    this.jobId = jobId;
    this.in = in;
    this.out = out;
    this.err = err;
    this.term = term;
    this.terminal = terminal;
    this.voice = voice;
    this.timing = timing;
  }

  /**
   * @param server the connection the job was submitted on (its caller closes it)
   * @param reconnect how to open another if that one breaks while the job waits
   * @return the command's exit status
   */
  public int run(ServerConnection server, Reconnect reconnect) {
    voice.submitted(jobId, out, err);
    MomTerminal.warmUp();
    // asked while the job waits, so that the attach need not wait for it
    CompletableFuture<Optional<WindowSize>> window = CompletableFuture.supplyAsync(terminal::size);
    try (ServerLink link = new ServerLink(server, reconnect, err, voice.program())) {
      StartWait wait = new StartWait(jobId, link, terminal, out, err, voice, timing);
      AttachReply ready = wait.await();
      Socket socket = connect(ready, link);
      return new TerminalSession(jobId, in, out, err, terminal, voice, wait.waited())
          .run(socket, attach(ready, window.join()));
    } catch (Ended e) {
      return e.status();
    }
  }

  private Socket connect(AttachReply ready, ServerLink link) throws Ended {
    String address = ControlCharacters.escape(ready.getAddress());
    try {
      return MomTerminal.connect(
          ready.getAddress(), ready.getNode(), ready.getCaCertificates(), timing.connect());
    } catch (MomTerminal.WrongPeerException e) {
      err.println(
          voice.program()
              + ": refusing the terminal of job "
              + jobId
              + " at "
              + address
              + ": "
              + ControlCharacters.escape(e.getMessage()));
    } catch (IOException e) {
      err.println(
          voice.program()
              + ": cannot reach the terminal of job "
              + jobId
              + " on "
              + ControlCharacters.escape(ready.getNode())
              + " at "
              + address
              + ": "
              + ControlCharacters.escape(String.valueOf(e.getMessage())));
    }
    link.abandon(jobId);
    throw new Ended(1);
  }

  private TerminalAttach attach(AttachReply ready, Optional<WindowSize> window) {
    return TerminalAttach.newBuilder()
        .setPermit(ready.getPermit())
        .setTerm(term)
        .setWindow(window.orElse(TerminalSession.DEFAULT_WINDOW))
        .setPassInput(!terminal.isTerminal())
        .build();
  }
}
