package dev.berth.security.tls;

import dev.berth.security.Identity;
import dev.berth.security.Role;
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
 * <p>Bounded: handshakes in progress, each with a deadline (beyond the bound a new connection is
 * closed at once: someone opens them faster than they complete handshakes), and connections open at
 * once.
 */
public final class TlsListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TlsListener.class);

  /**
   * @param handshakes handshakes in progress at once
   * @param handshakeTimeout how long a peer has to complete its handshake
   * @param connections connections open at once
   */
  public record Limits(int handshakes, Duration handshakeTimeout, int connections) {}

  /** One authenticated connection. */
  public interface Connection {
    SSLSocket socket();

    /** The peer's identity; null on a listener that asks peers for no certificate. */
    Identity peer();

    /** Ends the connection at TCP, without waiting for anything (another thread may be writing). */
    void cut();
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
  private final Semaphore handshakes;
  private final Semaphore connections;
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
    this.handshakes = new Semaphore(limits.handshakes());
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
          log.warn("accepting a {} connection failed: {}", name, e.toString());
          pause();
        }
        continue;
      }
      if (!handshakes.tryAcquire()) {
        closeQuietly(plain); // those already shaking hands finish (or time out) first
        continue;
      }
      if (!connections.tryAcquire()) {
        handshakes.release();
        log.warn(
            "refused a {} connection from {}: {} are open",
            name,
            plain.getRemoteSocketAddress(),
            limits.connections());
        closeQuietly(plain);
        continue;
      }
      open.add(plain);
      Thread t =
          new Thread(
              () -> serve(plain),
              "berth-" + name.replace(' ', '-') + "-" + plain.getRemoteSocketAddress());
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Socket plain) {
    Identity peer = null;
    try {
      SSLSocket socket = (SSLSocket) tlsSockets.createSocket(plain, null, plain.getPort(), true);
      socket.setUseClientMode(false);
      socket.setNeedClientAuth(role != null);
      socket.setEnabledProtocols(new String[] {TlsContexts.PROTOCOL});
      try {
        socket.setSoTimeout((int) limits.handshakeTimeout().toMillis());
        socket.startHandshake();
        peer = role == null ? null : TlsSockets.peer(socket);
      } finally {
        handshakes.release();
      }
      if (role != null && peer.role() != role) {
        log.warn(
            "refused a {} connection from {}: {} may not connect here, only {} credentials may",
            name,
            plain.getRemoteSocketAddress(),
            peer,
            role.word());
        return;
      }
      Identity who = peer;
      handler.serve(
          new Connection() {
            @Override
            public SSLSocket socket() {
              return socket;
            }

            @Override
            public Identity peer() {
              return who;
            }

            @Override
            public void cut() {
              closeQuietly(plain);
            }
          });
    } catch (IOException e) {
      if (running) {
        log.info(
            "{} connection from {}{} ended: {}",
            name,
            plain.getRemoteSocketAddress(),
            peer == null ? "" : " (" + peer + ")",
            e.toString());
      }
    } finally {
      connections.release();
      open.remove(plain);
      closeQuietly(plain);
    }
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
