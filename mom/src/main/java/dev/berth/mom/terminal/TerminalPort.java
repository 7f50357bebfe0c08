package dev.berth.mom.terminal;

import com.google.protobuf.ByteString;
import dev.berth.core.Frames;
import dev.berth.mom.os.Pty;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TerminalIn;
import dev.berth.proto.TerminalOut;
import dev.berth.proto.TerminalPermit;
import dev.berth.security.NotTrustedException;
import dev.berth.security.seal.Seal;
import dev.berth.security.tls.TlsListener;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
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
 * <p>Bounded: handshakes in progress and connections open (each a thread here and one more for its
 * keystrokes), the time to show a permit, and every frame's size.
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
  private static final int CONNECTIONS = 64;
  private static final Duration PERMIT_WAIT = Duration.ofSeconds(30);
  private static final Duration JOB_ANSWER = Duration.ofSeconds(60);

  /** How long a session's last output may take to drain after its shell ended. */
  private static final Duration DRAIN = Duration.ofSeconds(1);

  private final Permits permits;
  private final Jobs jobs;
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
            new TlsListener.Limits(16, Duration.ofSeconds(10), CONNECTIONS),
            this::serve);
  }

  public InetSocketAddress address() {
    return listener.address();
  }

  private void serve(TlsListener.Connection connection) throws IOException {
    SSLSocket socket = connection.socket();
    socket.setSoTimeout((int) PERMIT_WAIT.toMillis());
    InputStream in = new BufferedInputStream(socket.getInputStream());
    Link link = new Link(socket.getOutputStream());
    TerminalIn first = Frames.read(in, TerminalIn.parser(), FRAME_BYTES);
    if (first == null) {
      return;
    }
    if (!first.hasAttach()) {
      link.refuse("a session begins with its permit");
      return;
    }
    TerminalAttach attach = first.getAttach();
    TerminalPermit permit;
    try {
      permit = permits.check(attach.getPermit());
    } catch (NotTrustedException e) {
      log.warn(
          "refused a terminal session from {}: {}",
          socket.getRemoteSocketAddress(),
          e.getMessage());
      link.refuse("permit refused: " + e.getMessage());
      return;
    }
    Attachment attached;
    try {
      attached =
          jobs.attach(permit, attach, link)
              .toCompletableFuture()
              .get(JOB_ANSWER.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      link.refuse("job " + permit.getJobId() + " did not answer: " + e);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (attached.refusal() != null) {
      link.refuse(attached.refusal());
      return;
    }
    log.info(
        "job {}: terminal session from {}", permit.getJobId(), socket.getRemoteSocketAddress());
    socket.setSoTimeout(0); // a user may think for hours
    session(permit.getJobId(), in, link, attached);
  }

  /** Keystrokes in on a thread of their own, output out on this one, then the exit status. */
  private static void session(String jobId, InputStream in, Link link, Attachment attached)
      throws IOException {
    Pty pty = attached.pty();
    link.send(TerminalOut.newBuilder().setReady(true).build());
    Thread keys =
        new Thread(
            () -> {
              keystrokes(in, pty);
              attached.hangup().run(); // first: the job learns why before its shell sees the end
              pty.close();
            },
            "berth-terminal-keys-" + jobId);
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
        link.write(buffer, n);
      }
    } finally {
      pty.close();
    }
    int status;
    try {
      status = exit.get();
    } catch (ExecutionException e) {
      throw new IOException("the job did not say how it ended: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    link.send(TerminalOut.newBuilder().setExitStatus(status).build());
  }

  /**
   * The client's frames into the terminal, until it hangs up or goes away; then the terminal closes
   * and the job hears of it, to hang up its processes as a login's are when its connection drops.
   */
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
          case WINDOW -> pty.resize(frame.getWindow().getRows(), frame.getWindow().getColumns());
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

    void write(byte[] buffer, int n) throws IOException {
      send(TerminalOut.newBuilder().setOutput(ByteString.copyFrom(buffer, 0, n)).build());
    }

    void refuse(String why) throws IOException {
      send(TerminalOut.newBuilder().setRefused(why).build());
    }

    synchronized void send(TerminalOut frame) throws IOException {
      Frames.write(out, frame);
    }
  }
}
