package dev.berth.server.relay;

import dev.berth.proto.Error;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.proto.RelayFrame;
import dev.berth.proto.RelayedRequest;
import dev.berth.proto.Response;
import dev.berth.proto.ServerFrame;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.server.command.Caller;
import dev.berth.server.endpoint.ClientEndpoint;
import dev.berth.server.endpoint.ClientLimits;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active server's port for submit hosts: mutual TLS that admits only submit-host credentials of
 * the cluster's CA. A relay speaks for the users of the host its credential names, and only while
 * the server admits that host ({@link Gate}, Torque's {@code submit_hosts} and {@code acl_hosts});
 * the user comes from the relay, the host never does. The relay also asks here, for a mom that
 * offers it a job's output, whether that mom may deliver it to the relay's host.
 *
 * <p>What a peer can make it hold is bounded: handshakes in progress (each with a deadline),
 * connections in all and per host, requests in progress per connection and the bytes of its
 * unwritten replies (the port stops reading a connection over either), and the size of a frame.
 */
public final class RelayPort implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RelayPort.class);

  static final int HANDSHAKES = 16;
  static final int HANDSHAKE_MILLIS = 10_000;
  static final int CONNECTIONS = 256;
  static final int CONNECTIONS_PER_HOST = 8;
  static final int IN_FLIGHT = 32;

  /** User and group names as POSIX tools accept them. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,31}\\$?");

  /** Where the port listens, and the server credential's TLS context it proves itself with. */
  public record Binding(InetSocketAddress address, SSLContext tls) {}

  /** What the server allows a submit host now. */
  public interface Gate {
    /** Null when {@code host}'s relay may speak for its users; otherwise why not. */
    String refusal(String host);

    /** Whether a mom may deliver a job's output to {@code host}, and what of the job says where. */
    OutputGrant outputGrant(String host, OutputCheck check);
  }

  private final ServerSocket server;
  private final SSLSocketFactory tlsSockets;
  private final ClientEndpoint.Handler handler;
  private final Gate gate;
  private final ClientLimits limits;
  private final Semaphore handshakes = new Semaphore(HANDSHAKES);
  private final AtomicInteger connections = new AtomicInteger();
  private final Map<String, AtomicInteger> perHost = new ConcurrentHashMap<>();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean running = true;

  /**
   * Listens on {@code bind}; {@code tls} is the server's own credential's context. Of the client
   * socket's {@code limits}, a request frame's size holds here too, and a connection's unread
   * replies may hold one user's reply bytes: a relay whose replies pile up beyond that is not read
   * from, and dropped once it has not read any for the stall time.
   */
  public RelayPort(
      InetSocketAddress bind,
      SSLContext tls,
      ClientEndpoint.Handler handler,
      Gate gate,
      ClientLimits limits)
      throws IOException {
    this.handler = handler;
    this.gate = gate;
    this.limits = limits;
    // TLS goes over each accepted socket, so that a connection can be cut at the TCP socket:
    // closing
    // a TLS socket waits for a write that a peer which reads nothing keeps blocked.
    tlsSockets = tls.getSocketFactory();
    server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(bind, 64);
    acceptor = new Thread(this::accept, "berth-relay-port");
    acceptor.setDaemon(true);
    acceptor.start();
    log.info("submit hosts' relays connect at {}", address());
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private void accept() {
    while (running) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        if (running) {
          log.warn("accepting a relay failed: {}", e.toString());
          pause();
        }
        continue;
      }
      if (!handshakes.tryAcquire()) {
        // Someone opens connections faster than they complete handshakes: those already
        // shaking hands finish (or time out) first.
        closeQuietly(socket);
        continue;
      }
      if (connections.incrementAndGet() > CONNECTIONS) {
        connections.decrementAndGet();
        handshakes.release();
        log.warn("refused a relay connection from {}: {} are open", peer(socket), CONNECTIONS);
        closeQuietly(socket);
        continue;
      }
      open.add(socket);
      Thread t = new Thread(() -> serve(socket), "berth-relay-" + peer(socket));
      t.setDaemon(true);
      t.start();
    }
  }

  /** One relay's connection: handshake, identity, then its requests until it goes. */
  private void serve(Socket plain) {
    String host = null;
    try {
      SSLSocket socket = (SSLSocket) tlsSockets.createSocket(plain, null, plain.getPort(), true);
      socket.setUseClientMode(false);
      socket.setNeedClientAuth(true);
      socket.setEnabledProtocols(new String[] {"TLSv1.3"});
      Identity peer;
      try {
        socket.setSoTimeout(HANDSHAKE_MILLIS);
        socket.startHandshake();
        peer = Identity.of((X509Certificate) socket.getSession().getPeerCertificates()[0]);
      } finally {
        handshakes.release();
      }
      if (peer.role() != Role.SUBMIT) {
        log.warn(
            "refused a relay connection from {}: its credential is for {}, not a submit host",
            peer(socket),
            peer);
        return;
      }
      host = peer.name();
      if (perHost.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet()
          > CONNECTIONS_PER_HOST) {
        log.warn(
            "refused a relay connection of submit host {}: it has {} open",
            host,
            CONNECTIONS_PER_HOST);
        return;
      }
      socket.setSoTimeout(0); // a relay keeps its connection while its host's users are idle
      socket.setKeepAlive(true);
      log.info("relay of submit host {} connected from {}", host, peer(socket));
      new Conversation(socket, plain, host).run();
    } catch (IOException | IllegalArgumentException e) {
      if (running) {
        log.info(
            "relay connection from {}{} ended: {}",
            peer(plain),
            host == null ? "" : " (" + host + ")",
            e.toString());
      }
    } finally {
      if (host != null) {
        perHost.get(host).decrementAndGet();
      }
      connections.decrementAndGet();
      open.remove(plain);
      closeQuietly(plain);
    }
  }

  /**
   * The requests of one connection: read on this thread while fewer than {@link #IN_FLIGHT} are in
   * progress and the replies not yet written stay within the budget, answered in the order they
   * complete by a writer thread.
   */
  private final class Conversation {
    private final Socket socket;
    private final Socket plain;
    private final String host;
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    private final BlockingQueue<ServerFrame> replies = new LinkedBlockingQueue<>();

    /** Bytes of replies made and not yet written; guarded by this conversation's monitor. */
    private long unwritten;

    Conversation(Socket socket, Socket plain, String host) {
      this.socket = socket;
      this.plain = plain;
      this.host = host;
    }

    void run() throws IOException {
      InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
      Thread writer = new Thread(() -> write(out), "berth-relay-writer-" + host);
      writer.setDaemon(true);
      writer.start();
      try {
        while (running) {
          inFlight.acquireUninterruptibly();
          awaitReplyRoom();
          RelayFrame frame = Frames.read(in, RelayFrame.parser(), limits.frameBytes());
          if (frame == null) {
            return;
          }
          switch (frame.getBodyCase()) {
            case REQUEST -> take(frame.getRequest());
            case OUTPUT_CHECK -> check(frame.getOutputCheck());
            default -> throw new IOException("the relay of " + host + " sent an unknown frame");
          }
        }
      } finally {
        writer.interrupt();
      }
    }

    /** Waits while the unwritten replies are over the budget; drops a relay that reads none. */
    private synchronized void awaitReplyRoom() throws IOException {
      long deadline = System.nanoTime() + limits.stall().toNanos();
      while (unwritten > limits.userReplyBytes()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IOException(
              "the relay of "
                  + host
                  + " read none of its replies ("
                  + ClientLimits.size(unwritten)
                  + ") for "
                  + limits.describe(ClientLimits.Limit.STALL));
        }
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          throw new IOException("interrupted", e);
        }
      }
    }

    private void queue(ServerFrame reply) {
      synchronized (this) {
        unwritten += reply.getSerializedSize();
      }
      replies.add(reply);
    }

    private synchronized void written(ServerFrame reply) {
      unwritten -= reply.getSerializedSize();
      notifyAll();
    }

    private void check(OutputCheck check) {
      OutputGrant grant;
      try {
        grant = gate.outputGrant(host, check);
      } catch (RuntimeException e) {
        log.error("an output check of {} failed", host, e);
        grant = OutputGrant.newBuilder().setRefusal("internal error: " + e.getMessage()).build();
      }
      queue(
          ServerFrame.newBuilder().setOutputGrant(grant.toBuilder().setId(check.getId())).build());
    }

    private void take(RelayedRequest relayed) {
      long id = relayed.getRequest().getId();
      String refusal = gate.refusal(host);
      if (refusal != null) {
        reply(error(id, Error.Code.BAD_HOST, refusal));
        return;
      }
      if (!NAME.matcher(relayed.getUser()).matches()
          || !NAME.matcher(relayed.getGroup()).matches()) {
        reply(
            error(
                id,
                Error.Code.PROTOCOL,
                "the relay of " + host + " named no valid user and group for its caller"));
        return;
      }
      CompletionStage<Response> answer;
      try {
        answer =
            handler.handle(
                relayed.getRequest(), Caller.relayed(relayed.getUser(), relayed.getGroup(), host));
      } catch (RuntimeException e) {
        log.error("a request relayed by {} failed", host, e);
        reply(internal(id, e));
        return;
      }
      answer.whenComplete(
          (response, failure) ->
              reply(
                  failure == null
                      ? response.toBuilder().setId(id).build()
                      : internal(id, failure)));
    }

    private void reply(Response response) {
      queue(ServerFrame.newBuilder().setResponse(response).build());
    }

    private void write(OutputStream out) {
      try {
        while (true) {
          ServerFrame reply = replies.take();
          Frames.write(out, reply);
          written(reply);
          inFlight.release();
        }
      } catch (InterruptedException e) {
        // the connection ended; nobody reads what is left
      } catch (IOException e) {
        closeQuietly(plain); // the reader sees it and ends the conversation
      }
    }
  }

  private static Response error(long id, Error.Code code, String message) {
    return Response.newBuilder()
        .setId(id)
        .setError(Error.newBuilder().setCode(code).setMessage(message))
        .build();
  }

  private static Response internal(long id, Throwable failure) {
    return Response.newBuilder()
        .setId(id)
        .setError(
            Error.newBuilder()
                .setCode(Error.Code.INTERNAL)
                .setMessage("internal error: " + failure.getMessage()))
        .build();
  }

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

  private static String peer(Socket socket) {
    return String.valueOf(socket.getRemoteSocketAddress());
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
