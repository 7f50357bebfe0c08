package dev.berth.server.relay;

import dev.berth.core.Budget;
import dev.berth.core.Frames;
import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.proto.RelayFrame;
import dev.berth.proto.RelayedRequest;
import dev.berth.proto.Response;
import dev.berth.proto.ServerFrame;
import dev.berth.security.Role;
import dev.berth.security.tls.TlsListener;
import dev.berth.server.command.Caller;
import dev.berth.server.endpoint.ClientEndpoint;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.endpoint.ErrorResponses;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active server's port for submit hosts: mutual TLS that admits only submit-host credentials of
 * the cluster's CA. A relay speaks for the users of the host its credential names, and only while
 * the server admits that host ({@link Gate}, Torque's {@code submit_hosts} and {@code acl_hosts});
 * the user comes from the relay, the host never does. The relay also asks here, for a mom that
 * offers it a job's output, whether that mom may deliver it to the relay's host.
 *
 * <p>What a peer can make it hold is bounded: handshakes in progress in all and per source address
 * (each with one deadline), connections in all and per host, requests in progress per connection,
 * the size of a frame, and the bytes of requests not yet answered and replies not yet written per
 * host and for the port ({@link RelayBudget}: the port stops reading a host's connections while
 * they are over).
 */
public final class RelayPort implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RelayPort.class);

  static final int HANDSHAKES = 16;
  static final int HANDSHAKES_PER_SOURCE = 4;
  static final Duration HANDSHAKE = Duration.ofSeconds(10);
  static final int CONNECTIONS = 256;
  static final int CONNECTIONS_PER_HOST = 8;
  static final int IN_FLIGHT = 32;

  /**
   * The port's budget: the requests and replies of all relays ({@link RelayBudget}) and what their
   * connections hold themselves; a thread reads and one writes each connection.
   */
  public static Budget budget(ClientLimits limits) {
    RelayBudget bytes = RelayBudget.forFrames(limits.frameBytes(), limits.bufferBytes());
    return new Budget(
        "relay port (submit hosts)",
        limits.describe(ClientLimits.Limit.FRAME)
            + " a request, "
            + IN_FLIGHT
            + " in progress a connection; "
            + CONNECTIONS_PER_HOST
            + " connections and "
            + Sizes.readable(bytes.hostBytes())
            + " of requests and unread replies a host; in all "
            + CONNECTIONS
            + " connections (each "
            + Sizes.readable(TlsListener.CONNECTION_BYTES)
            + "), "
            + Sizes.readable(bytes.portBytes()),
        bytes.portBytes() + (long) CONNECTIONS * TlsListener.CONNECTION_BYTES,
        2 * CONNECTIONS);
  }

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

  private final TlsListener listener;
  private final ClientEndpoint.Handler handler;
  private final Gate gate;
  private final ClientLimits limits;
  private final RelayBudget budget;
  private final Map<String, AtomicInteger> perHost = new ConcurrentHashMap<>();
  private volatile boolean running = true;

  /**
   * Listens on {@code bind}; {@code tls} is the server's own credential's context. Of the client
   * socket's {@code limits}, a request frame's size holds here too and sets the port's budget (four
   * frames a host, sixteen in all): a relay whose requests and unread replies fill its host's share
   * is not read from, and dropped once it has found no room for the stall time.
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
    this.budget = RelayBudget.forFrames(limits.frameBytes(), limits.bufferBytes());
    listener =
        new TlsListener(
            "relay",
            bind,
            tls,
            Role.SUBMIT,
            new TlsListener.Limits(HANDSHAKES, HANDSHAKES_PER_SOURCE, HANDSHAKE, CONNECTIONS),
            this::serve);
    log.info("submit hosts' relays connect at {}", address());
  }

  public InetSocketAddress address() {
    return listener.address();
  }

  /** One relay's connection: its requests until it goes. */
  private void serve(TlsListener.Connection c) throws IOException {
    String host = c.peer().name();
    AtomicInteger ofHost = perHost.computeIfAbsent(host, h -> new AtomicInteger());
    try {
      if (ofHost.incrementAndGet() > CONNECTIONS_PER_HOST) {
        c.refused(
            "connections of a host",
            "refused a relay connection of submit host "
                + host
                + ": it has "
                + CONNECTIONS_PER_HOST
                + " open");
        return;
      }
      c.socket().setSoTimeout(0); // a relay keeps its connection while its host's users are idle
      c.socket().setKeepAlive(true);
      log.info(
          "relay of submit host {} connected from {}", host, c.socket().getRemoteSocketAddress());
      new Conversation(c, host).run();
    } finally {
      ofHost.decrementAndGet();
    }
  }

  /**
   * The requests of one connection: read on this thread while fewer than {@link #IN_FLIGHT} are in
   * progress and its host has room in the budget for the next, answered in the order they complete
   * by a writer thread.
   */
  private final class Conversation {
    private final TlsListener.Connection connection;
    private final String host;
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    private final BlockingQueue<ServerFrame> replies = new LinkedBlockingQueue<>();

    /**
     * Bytes of requests not yet answered and replies not yet written, counted in the port's budget;
     * guarded by this conversation's monitor, as is whether the connection has ended.
     */
    private long held;

    private boolean closed;

    Conversation(TlsListener.Connection connection, String host) {
      this.connection = connection;
      this.host = host;
    }

    void run() throws IOException {
      InputStream in = new BufferedInputStream(connection.socket().getInputStream(), 1 << 16);
      OutputStream out = new BufferedOutputStream(connection.socket().getOutputStream(), 1 << 16);
      Thread writer = new Thread(() -> write(out), "berth-relay-writer-" + host);
      writer.setDaemon(true);
      writer.start();
      try {
        while (running) {
          inFlight.acquireUninterruptibly();
          int size = Frames.length(in, limits.frameBytes());
          if (size < 0) {
            return;
          }
          budget.takeRequest(host, size, limits.stall());
          hold(size);
          RelayFrame frame = Frames.body(in, size, RelayFrame.parser());
          switch (frame.getBodyCase()) {
            case REQUEST -> take(frame.getRequest(), size);
            case OUTPUT_CHECK -> check(frame.getOutputCheck(), size);
            default -> throw new IOException("the relay of " + host + " sent an unknown frame");
          }
        }
      } finally {
        writer.interrupt();
        release();
      }
    }

    private synchronized void hold(long bytes) {
      held += bytes;
    }

    /** The connection ended: what it held goes back, and replies made later are not counted. */
    private synchronized void release() {
      closed = true;
      budget.giveBack(host, held);
      held = 0;
    }

    /** A reply to a request of {@code requestBytes}: the request's bytes become the reply's. */
    private void queue(ServerFrame reply, long requestBytes) {
      synchronized (this) {
        if (closed) {
          return; // nobody writes it; the request's bytes went back with the connection
        }
        long bytes = reply.getSerializedSize();
        budget.takeReply(host, bytes);
        budget.giveBack(host, requestBytes);
        held += bytes - requestBytes;
      }
      replies.add(reply);
    }

    private synchronized void written(ServerFrame reply) {
      if (closed) {
        return;
      }
      long bytes = reply.getSerializedSize();
      budget.giveBack(host, bytes);
      held -= bytes;
    }

    private void check(OutputCheck check, long requestBytes) {
      OutputGrant grant;
      try {
        grant = gate.outputGrant(host, check);
      } catch (RuntimeException e) {
        log.error("an output check of {} failed", host, e);
        grant = OutputGrant.newBuilder().setRefusal("internal error: " + e.getMessage()).build();
      }
      queue(
          ServerFrame.newBuilder().setOutputGrant(grant.toBuilder().setId(check.getId())).build(),
          requestBytes);
    }

    private void take(RelayedRequest relayed, long requestBytes) {
      long id = relayed.getRequest().getId();
      String refusal = gate.refusal(host);
      if (refusal != null) {
        reply(ErrorResponses.error(id, Error.Code.BAD_HOST, refusal), requestBytes);
        return;
      }
      if (!NAME.matcher(relayed.getUser()).matches()
          || !NAME.matcher(relayed.getGroup()).matches()) {
        reply(
            ErrorResponses.error(
                id,
                Error.Code.PROTOCOL,
                "the relay of " + host + " named no valid user and group for its caller"),
            requestBytes);
        return;
      }
      CompletionStage<Response> answer;
      try {
        answer =
            handler.handle(
                relayed.getRequest(), Caller.relayed(relayed.getUser(), relayed.getGroup(), host));
      } catch (RuntimeException e) {
        log.error("a request relayed by {} failed", host, e);
        reply(internal(id, e), requestBytes);
        return;
      }
      answer.whenComplete(
          (response, failure) ->
              reply(
                  failure == null ? response.toBuilder().setId(id).build() : internal(id, failure),
                  requestBytes));
    }

    private void reply(Response response, long requestBytes) {
      queue(ServerFrame.newBuilder().setResponse(response).build(), requestBytes);
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
        connection.cut(); // the reader sees it and ends the conversation
      }
    }
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
    listener.close();
  }
}
