package dev.berth.security.tls;

import dev.berth.core.QuietLog;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.net.Deadline;
import dev.berth.security.net.SourceSlots;
import dev.berth.security.net.Sources;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP port that takes peers of one role over mutual TLS 1.3 with the cluster's credentials and
 * serves each connection on a thread of its own. A peer without a credential of the cluster's CA
 * cannot complete the handshake; one of another role is cut off after it. TLS is layered over each
 * accepted socket, so that a connection can always be cut at TCP: closing a TLS socket waits for a
 * write that a peer which reads nothing keeps blocked.
 *
 * <p>Bounded: handshakes in progress, in all and per source ({@link Sources}), each with one
 * deadline for the whole handshake however slowly its bytes come (beyond the bounds a new
 * connection is closed at once: someone opens them faster than they complete handshakes), and
 * connections open at once. What it refuses or cuts it logs at most once a while per source and
 * kind ({@link QuietLog}).
 */
public final class TlsListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TlsListener.class);

  /** How long one line stands for all refusals (or cuts) of one source and kind. */
  public static final Duration QUIET = Duration.ofSeconds(10);

  /**
   * What one connection of a port on this listener holds at most, for the ports' budgets: its TLS
   * socket's buffers, its streams' buffers, a frame of up to 64 KiB each way (larger requests are
   * counted by the port that takes them) and its threads' objects. An estimate with room.
   */
  public static final int CONNECTION_BYTES = 256 << 10;

  /**
   * @param handshakes handshakes in progress at once
   * @param handshakesPerSource handshakes in progress at once from one source
   * @param handshake how long a peer has to complete its handshake, in all
   * @param connections connections open at once
   */
  public record Limits(
      int handshakes, int handshakesPerSource, Duration handshake, int connections) {}

  /** One authenticated connection. */
  public interface Connection {
    SSLSocket socket();

    /** The peer's identity; null on a listener that asks peers for no certificate. */
    Identity peer();

    /** Where the connection comes from, as the bounds count it ({@link Sources}). */
    String source();

    /** Ends the connection at TCP, without waiting for anything (another thread may be writing). */
    void cut();

    /**
     * Logs that the connection was refused for {@code kind} (a limit's or a check's name): {@code
     * line} at once, later ones of its source and kind counted into one line a while.
     */
    void refused(String kind, String line);
  }

  /** Serves one connection; the listener cuts it when this returns or throws. */
  @FunctionalInterface
  public interface Handler {
    void serve(Connection connection) throws IOException;
  }

  private final String name;
  private final Role role;
  private final Limits limits;
  private final Handler handler;
  private final ServerSocket server;
  private final SSLSocketFactory tlsSockets;
  private final SourceSlots handshakes;
  private final Semaphore connections;
  private final QuietLog refusals = new QuietLog(log::warn, QUIET, System::currentTimeMillis);
  private final QuietLog endings = new QuietLog(log::info, QUIET, System::currentTimeMillis);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean running = true;

  /**
   * Listens on {@code bind} with {@code tls} (this daemon's credential) for peers of {@code role};
   * {@code name} says what the connections are in threads and log lines ("relay", "output
   * delivery"). With {@code role} null peers show no certificate (TLS proves only this daemon to
   * them) and the handler must authenticate each by what it sends first; {@link Connection#peer} is
   * then null.
   */
  public TlsListener(
      String name,
      InetSocketAddress bind,
      SSLContext tls,
      Role role,
      Limits limits,
      Handler handler)
      throws IOException {
    this.name = name;
    this.role = role;
    this.limits = limits;
    this.handler = handler;
    this.handshakes = new SourceSlots(limits.handshakes(), limits.handshakesPerSource());
    this.connections = new Semaphore(limits.connections());
    tlsSockets = tls.getSocketFactory();
    server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(bind, 64);
    acceptor = new Thread(this::accept, "berth-" + name.replace(' ', '-') + "-port");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private void accept() {
    while (running) {
      Socket plain;
      try {
        plain = server.accept();
      } catch (IOException e) {
        if (running) {
          // Out of file descriptors, most likely: a moment's pause instead of a busy loop.
          refusals.say("this port", "accept", "accepting a " + name + " connection failed: " + e);
          pause();
        }
        continue;
      }
      String source = Sources.of(plain.getInetAddress());
      SourceSlots.Refusal full = handshakes.take(source);
      if (full != null) {
        // those already shaking hands finish (or reach their deadline) first
        refuse(
            plain,
            source,
            full == SourceSlots.Refusal.ALL ? "handshakes" : "handshakes of one source",
            full == SourceSlots.Refusal.ALL
                ? limits.handshakes() + " handshakes are in progress"
                : limits.handshakesPerSource() + " handshakes of " + source + " are in progress");
        continue;
      }
      if (!connections.tryAcquire()) {
        handshakes.release(source);
        refuse(plain, source, "connections", limits.connections() + " are open");
        continue;
      }
      open.add(plain);
      Thread t =
          new Thread(
              () -> serve(plain, source),
              "berth-" + name.replace(' ', '-') + "-" + plain.getRemoteSocketAddress());
      t.setDaemon(true);
      t.start();
    }
  }

  private void refuse(Socket plain, String source, String kind, String why) {
    refusals.say(
        source,
        kind,
        "refused a " + name + " connection from " + plain.getRemoteSocketAddress() + ": " + why);
    closeQuietly(plain);
  }

  private void serve(Socket plain, String source) {
    Identity peer = null;
    try {
      SSLSocket socket = handshake(plain, source);
      if (socket == null) {
        return;
      }
      peer = role == null ? null : TlsSockets.peer(socket);
      if (role != null && peer.role() != role) {
        refusals.say(
            source,
            "role",
            "refused a "
                + name
                + " connection from "
                + plain.getRemoteSocketAddress()
                + ": "
                + peer
                + " may not connect here, only "
                + role.word()
                + " credentials may");
        return;
      }
      handler.serve(connection(plain, socket, peer, source));
    } catch (IOException e) {
      if (running) {
        endings.say(
            source,
            "ended",
            name
                + " connection from "
                + plain.getRemoteSocketAddress()
                + (peer == null ? "" : " (" + peer + ")")
                + " ended: "
                + e);
      }
    } finally {
      connections.release();
      open.remove(plain);
      closeQuietly(plain);
    }
  }

  /**
   * TLS over {@code plain}, once the peer completed its handshake within the deadline; null (and
   * logged) when it did not.
   */
  private SSLSocket handshake(Socket plain, String source) {
    Deadline deadline = Deadline.in(limits.handshake(), () -> closeQuietly(plain));
    String failure;
    try {
      SSLSocket socket = (SSLSocket) tlsSockets.createSocket(plain, null, plain.getPort(), true);
      socket.setUseClientMode(false);
      socket.setNeedClientAuth(role != null);
      socket.setEnabledProtocols(new String[] {TlsContexts.PROTOCOL});
      socket.startHandshake();
      if (deadline.meet()) {
        return socket;
      }
      failure = null;
    } catch (IOException e) {
      failure = deadline.meet() ? e.toString() : null;
    } finally {
      handshakes.release(source);
    }
    if (running) {
      refusals.say(
          source,
          failure == null ? "handshake time" : "handshake",
          failure == null
              ? "cut a "
                  + name
                  + " connection from "
                  + plain.getRemoteSocketAddress()
                  + ": no TLS handshake within "
                  + limits.handshake().toSeconds()
                  + " s"
              : "a "
                  + name
                  + " connection from "
                  + plain.getRemoteSocketAddress()
                  + " failed its TLS handshake: "
                  + failure);
    }
    return null;
  }

  private Connection connection(Socket plain, SSLSocket socket, Identity peer, String source) {
    return new Connection() {
      @Override
      public SSLSocket socket() {
        return socket;
      }

      @Override
      public Identity peer() {
        return peer;
      }

      @Override
      public String source() {
        return source;
      }

      @Override
      public void cut() {
        closeQuietly(plain);
      }

      @Override
      public void refused(String kind, String line) {
        refusals.say(source, kind, line);
      }
    };
  }

  /** Stops taking connections and cuts those that are open. */
  @Override
  public void close() {
    running = false;
    closeQuietly(server);
    for (Socket s : open) {
      closeQuietly(s);
    }
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // gone either way
    }
  }
}
