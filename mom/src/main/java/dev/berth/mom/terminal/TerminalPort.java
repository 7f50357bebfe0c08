package dev.berth.mom.terminal;

import com.google.protobuf.ByteString;
import dev.berth.core.Budget;
import dev.berth.core.Frames;
import dev.berth.core.Sizes;
import dev.berth.mom.os.Pty;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TerminalIn;
import dev.berth.proto.TerminalOut;
import dev.berth.proto.TerminalPermit;
import dev.berth.proto.WindowSize;
import dev.berth.security.NotTrustedException;
import dev.berth.security.net.Deadline;
import dev.berth.security.net.SourceSlots;
import dev.berth.security.seal.Seal;
import dev.berth.security.tls.TlsListener;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mom's port for interactive sessions (qsub -I). TLS proves the mom to the client with its
 * credential; the client proves nothing but the permit it shows first, which the server sealed for
 * this node and gives only to the job's owner ({@link Permits}). The job then starts its shell on a
 * pseudo-terminal, and the connection carries keystrokes and window sizes in, the terminal's output
 * out, and at the end the job's exit status.
 *
 * <p>Bounded: handshakes in progress and connections still showing their permits, in all and per
 * source address, each with one deadline however slowly its bytes come; connections open (each a
 * thread here and one more for its keystrokes); and every frame's size. A connection that has shown
 * its permit and begun its session has no deadline: a shell may sit idle for hours.
 */
public final class TerminalPort implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TerminalPort.class);

  /** What the port asks of the mom: the session of the permit's job, or why not. */
  @FunctionalInterface
  public interface Jobs {
    CompletionStage<Attachment> attach(TerminalPermit permit, TerminalAttach attach, Screen screen);
  }

  static final int CHUNK = 64 << 10;
  private static final int FRAME_BYTES = CHUNK + 1024;

  /** The first frame: a permit is a sealed letter with one certificate, a few KiB. */
  private static final int PERMIT_BYTES = 16 << 10;

  /** Sessions at once, and connections still showing their permits (each within PERMIT_WAIT). */
  static final int SESSIONS = 64;

  static final int SHOWING = 16;
  static final int SHOWING_PER_SOURCE = 4;
  static final Duration PERMIT_WAIT = Duration.ofSeconds(30);

  /** TLS handshakes in progress, in all and per source, and the time each may take. */
  static final int HANDSHAKES = 16;

  static final int HANDSHAKES_PER_SOURCE = 4;
  static final Duration HANDSHAKE = Duration.ofSeconds(10);

  /**
   * The port's budget: sessions, connections showing their permits and handshakes in progress; a
   * session has a thread for each direction.
   */
  public static Budget budget() {
    int connections = SESSIONS + SHOWING + HANDSHAKES;
    return new Budget(
        "terminal port (qsub -I)",
        SESSIONS
            + " sessions, "
            + SHOWING
            + " showing a permit ("
            + PERMIT_WAIT.toSeconds()
            + " s), "
            + HANDSHAKES
            + " handshakes ("
            + HANDSHAKE.toSeconds()
            + " s); each "
            + Sizes.readable(TlsListener.CONNECTION_BYTES),
        (long) connections * TlsListener.CONNECTION_BYTES,
        2 * SESSIONS + SHOWING + HANDSHAKES);
  }

  /** How long a session's end may wait for the job's exit status once its terminal has closed. */
  private static final Duration EXIT_WAIT = Duration.ofMinutes(10);

  private static final Duration JOB_ANSWER = Duration.ofSeconds(10);

  /** The most rows or columns a window may have; a terminal keeps each as an unsigned short. */
  private static final int MAX_SIDE = 10_000;

  /** How long a session's last output may take to drain after its shell ended. */
  private static final Duration DRAIN = Duration.ofSeconds(1);

  private final Permits permits;
  private final Jobs jobs;
  private final SourceSlots showing = new SourceSlots(SHOWING, SHOWING_PER_SOURCE);
  private final TlsListener listener;

  public TerminalPort(InetSocketAddress bind, SSLContext tls, Seal seal, Jobs jobs)
      throws IOException {
    this.permits = new Permits(seal, Clock.systemUTC());
    this.jobs = jobs;
    this.listener =
        new TlsListener(
            "terminal",
            bind,
            tls,
            null,
            new TlsListener.Limits(
                HANDSHAKES, HANDSHAKES_PER_SOURCE, HANDSHAKE, SESSIONS + SHOWING),
            this::serve);
  }

  public InetSocketAddress address() {
    return listener.address();
  }

  private void serve(TlsListener.Connection connection) throws IOException {
    String source = connection.source();
    SourceSlots.Refusal full = showing.take(source);
    if (full != null) {
      connection.refused(
          full == SourceSlots.Refusal.ALL ? "showing" : "showing from one source",
          "refused a terminal connection from "
              + connection.socket().getRemoteSocketAddress()
              + ": "
              + (full == SourceSlots.Refusal.ALL
                  ? SHOWING + " are showing their permits"
                  : SHOWING_PER_SOURCE + " of " + source + " are showing their permits"));
      return;
    }
    SSLSocket socket = connection.socket();
    socket.setKeepAlive(true); // a client that vanishes is noticed, in time
    InputStream in = new BufferedInputStream(socket.getInputStream());
    Link link = new Link(socket.getOutputStream());
    Attachment attached;
    Deadline deadline = Deadline.in(PERMIT_WAIT, connection::cut);
    try {
      attached = admit(connection, in, link);
    } catch (IOException e) {
      if (deadline.meet()) {
        throw e;
      }
      attached = null; // the cut ended the read
    } finally {
      showing.release(source);
    }
    if (!deadline.meet()) {
      connection.refused(
          "permit time",
          "cut a terminal connection from "
              + socket.getRemoteSocketAddress()
              + ": no permit shown within "
              + PERMIT_WAIT.toSeconds()
              + " s");
      if (attached != null) {
        hangUp(attached); // cut just as its session began: nobody is there
      }
      return;
    }
    if (attached != null) {
      session(in, link, attached);
    }
  }

  /** Reads the permit, checks it and asks its job for the session; null when there is none. */
  private Attachment admit(TlsListener.Connection connection, InputStream in, Link link)
      throws IOException {
    SSLSocket socket = connection.socket();
    TerminalIn first = Frames.read(in, TerminalIn.parser(), PERMIT_BYTES);
    if (first == null) {
      return null;
    }
    if (!first.hasAttach()) {
      link.refuse("a session begins with its permit");
      return null;
    }
    TerminalAttach attach = first.getAttach();
    if (!sane(attach.getWindow())) {
      attach = attach.toBuilder().clearWindow().build(); // the terminal's own default, then
    }
    TerminalPermit permit;
    try {
      permit = permits.check(attach.getPermit());
    } catch (NotTrustedException e) {
      connection.refused(
          "permit",
          "refused a terminal session from "
              + socket.getRemoteSocketAddress()
              + ": "
              + e.getMessage());
      link.refuse("permit refused: " + e.getMessage());
      return null;
    }
    CompletableFuture<Attachment> answer = jobs.attach(permit, attach, link).toCompletableFuture();
    Attachment attached;
    try {
      attached = answer.get(JOB_ANSWER.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      answer.thenAccept(TerminalPort::hangUp); // a session started after all has no one
      link.refuse("job " + permit.getJobId() + " did not answer");
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    if (attached.refusal() != null) {
      link.refuse(attached.refusal());
      return null;
    }
    log.info(
        "job {}: terminal session from {}", permit.getJobId(), socket.getRemoteSocketAddress());
    return attached;
  }

  /**
   * Keystrokes in on a thread of their own, output out on this one, then the exit status. Whatever
   * ends the keystrokes (the client's hangup, its going away) hangs the session up.
   */
  private static void session(InputStream in, Link link, Attachment attached) throws IOException {
    Pty pty = attached.pty();
    try {
      link.send(TerminalOut.newBuilder().setReady(true).build());
    } catch (IOException e) {
      hangUp(attached);
      throw e;
    }
    Thread keys =
        new Thread(
            () -> {
              try {
                keystrokes(in, pty);
              } finally {
                hangUp(attached);
              }
            },
            "berth-terminal-keys");
    keys.setDaemon(true);
    keys.start();
    CompletableFuture<Integer> exit = attached.exit().toCompletableFuture();
    // Processes the shell left behind may hold the terminal open: the end of the job ends them,
    // and the terminal closes a moment after the shell's end in any case.
    exit.whenComplete(
        (status, failure) ->
            CompletableFuture.delayedExecutor(DRAIN.toMillis(), TimeUnit.MILLISECONDS)
                .execute(pty::close));
    byte[] buffer = new byte[CHUNK];
    try {
      int n;
      while ((n = pty.read(buffer, 0, buffer.length)) > 0) {
        link.write(Arrays.copyOf(buffer, n));
      }
    } finally {
      pty.close();
    }
    int status;
    try {
      status = exit.get(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("the job did not say how it ended: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    link.send(TerminalOut.newBuilder().setExitStatus(status).build());
  }

  /** The job hears that its user went away before its shell sees the terminal end. */
  private static void hangUp(Attachment attached) {
    if (attached.pty() != null) {
      attached.hangup().run();
      attached.pty().close();
    }
  }

  /** The client's frames into the terminal, until it hangs up or goes away. */
  private static void keystrokes(InputStream in, Pty pty) {
    try {
      while (true) {
        TerminalIn frame = Frames.read(in, TerminalIn.parser(), FRAME_BYTES);
        if (frame == null) {
          return;
        }
        switch (frame.getBodyCase()) {
          case INPUT -> {
            ByteString data = frame.getInput();
            pty.write(data.toByteArray(), 0, data.size());
          }
          case WINDOW -> {
            if (sane(frame.getWindow())) {
              pty.resize(frame.getWindow().getRows(), frame.getWindow().getColumns());
            }
          }
          case HANGUP -> {
            return;
          }
          default -> {
            // an attach again, or something newer: ignored
          }
        }
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  /** A window size a terminal can have. */
  static boolean sane(WindowSize window) {
    return window.getRows() > 0
        && window.getRows() <= MAX_SIDE
        && window.getColumns() > 0
        && window.getColumns() <= MAX_SIDE;
  }

  @Override
  public void close() {
    listener.close();
  }

  /** The connection's way out: frames written whole, by one thread at a time. */
  private static final class Link implements Screen {
    private final OutputStream out;

    Link(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(byte[] data) throws IOException {
      for (int from = 0; from < data.length; from += CHUNK) {
        int n = Math.min(CHUNK, data.length - from);
        send(TerminalOut.newBuilder().setOutput(ByteString.copyFrom(data, from, n)).build());
      }
    }

    void refuse(String why) throws IOException {
      send(TerminalOut.newBuilder().setRefused(why).build());
    }

    synchronized void send(TerminalOut frame) throws IOException {
      Frames.write(out, frame);
    }
  }
}
