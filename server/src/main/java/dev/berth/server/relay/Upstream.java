package dev.berth.server.relay;

import dev.berth.core.Frames;
import dev.berth.proto.Error;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.proto.RelayFrame;
import dev.berth.proto.RelayedRequest;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.proto.ServerFrame;
import dev.berth.security.Role;
import dev.berth.security.tls.TlsSockets;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.server.endpoint.ErrorResponses;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's connection to the active server, carrying its users' requests over mutual TLS. Only the
 * active server listens on its relay port, so the relay connects to whichever of the servers
 * answers, and follows a takeover as the commands do: while no server answers, requests wait (up to
 * the patience); when a connection breaks or its server steps down, queries and submissions (which
 * carry a submission id the server answers once) are sent again to the next server, and anything
 * else is answered with an error saying it may have taken effect.
 */
public final class Upstream implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Upstream.class);

  private static final long RETRY_MILLIS = 200;
  private static final int CONNECT_MILLIS = 3_000;

  /**
   * A frame on its way: sent on {@code link}, or waiting in the outbox when that is null; {@code
   * failed} makes the answer that says why none came.
   */
  private static final class Pending {
    final RelayFrame frame;
    final CompletableFuture<ServerFrame> reply = new CompletableFuture<>();
    final boolean resendable;
    final Function<String, ServerFrame> failed;
    final long since = System.nanoTime();
    volatile Link link;
    volatile long sentAt;

    /** Whether this is a whole command, which may take long (see COMMAND_REPLY_LIMIT). */
    boolean wholeCommand() {
      return frame.getRequest().getRequest().getBodyCase() == Request.BodyCase.RUN_COMMAND;
    }

    Pending(RelayFrame frame, boolean resendable, Function<String, ServerFrame> failed) {
      this.frame = frame;
      this.resendable = resendable;
      this.failed = failed;
    }

    void fail(String why) {
      reply.complete(failed.apply(why));
    }
  }

  private final List<InetSocketAddress> servers;
  private final SSLContext tls;
  private final Duration patience;
  private final Duration replyTimeout;
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final BlockingQueue<Pending> outbox = new LinkedBlockingQueue<>();
  private final AtomicLong ids = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Link link;
  private InetSocketAddress lastFailed;

  /**
   * @param servers the relay ports of every server, of which only the active one listens
   * @param tls this relay's credential's context
   * @param patience how long a request waits for a server to answer at all
   * @param replyTimeout how long a sent request waits for its answer before the server is taken for
   *     lost (a paused server still holds its connections)
   */
  public Upstream(
      List<InetSocketAddress> servers, SSLContext tls, Duration patience, Duration replyTimeout) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("a relay needs at least one server address");
    }
    this.servers = List.copyOf(servers);
    this.tls = tls;
    this.patience = patience;
    this.replyTimeout = replyTimeout;
    thread = new Thread(this::run, "berth-relay-upstream");
    thread.setDaemon(true);
    thread.start();
  }

  /** Sends {@code request} for {@code caller}; completes with the server's answer or an error. */
  public CompletionStage<Response> call(Caller caller, Request request) {
    long id = ids.incrementAndGet();
    RelayFrame frame =
        RelayFrame.newBuilder()
            .setRequest(
                RelayedRequest.newBuilder()
                    .setUser(caller.user())
                    .setGroup(caller.group())
                    .setRequest(request.toBuilder().setId(id)))
            .build();
    return send(
            id,
            new Pending(
                frame,
                resendable(request),
                why ->
                    ServerFrame.newBuilder()
                        .setResponse(ErrorResponses.error(0, Error.Code.SYSTEM, why))
                        .build()))
        .thenApply(ServerFrame::getResponse);
  }

  /**
   * Asks the server whether the mom of {@code node} may deliver {@code stream} of {@code jobId} to
   * this relay's host; completes with the server's grant or a refusal.
   */
  public CompletionStage<OutputGrant> check(String jobId, String node, String stream) {
    long id = ids.incrementAndGet();
    RelayFrame frame =
        RelayFrame.newBuilder()
            .setOutputCheck(
                OutputCheck.newBuilder().setId(id).setJobId(jobId).setNode(node).setStream(stream))
            .build();
    return send(
            id,
            new Pending(
                frame,
                true,
                why ->
                    ServerFrame.newBuilder()
                        .setOutputGrant(OutputGrant.newBuilder().setRefusal(why))
                        .build()))
        .thenApply(ServerFrame::getOutputGrant);
  }

  private CompletableFuture<ServerFrame> send(long id, Pending p) {
    pending.put(id, p);
    p.reply.whenComplete((r, t) -> pending.remove(id));
    outbox.add(p);
    return p.reply;
  }

  /**
   * Whether sending {@code request} twice does what sending it once does: queries, and submissions
   * with a submission id (the server gives a repeated id the job the first attempt made), and the
   * native client's commands that only read or submit so (berth-cmd retries the same ones).
   */
  static boolean resendable(Request request) {
    return switch (request.getBodyCase()) {
      case SUBMIT -> !request.getSubmit().getSubmissionId().isEmpty();
      case RUN_COMMAND -> repeatable(request.getRunCommand());
      case ATTACH -> true; // it only asks
      default -> Decider.isQuery(request);
    };
  }

  private static boolean repeatable(RunCommand command) {
    return switch (command.getName()) {
      case "qstat",
          "tracejob",
          "pbsfs",
          "pbs_rstat",
          "squeue",
          "sacct",
          "sinfo",
          "sprio",
          "sshare" ->
          true;
      case "qsub", "sbatch" -> !command.getSubmissionId().isEmpty();
      default -> false;
    };
  }

  private void run() {
    while (running) {
      Link l = connect();
      if (l == null) {
        continue; // closed meanwhile
      }
      link = l;
      try {
        pump(l);
      } finally {
        link = null;
        l.close();
        lastFailed = l.address;
        recall(l);
      }
    }
    failAll("the relay is stopping");
  }

  /** Connects to the first server that answers, failing requests that waited too long meanwhile. */
  private Link connect() {
    List<InetSocketAddress> order = new ArrayList<>(servers);
    if (lastFailed != null && order.remove(lastFailed)) {
      order.add(lastFailed); // the server that was lost last is tried last
    }
    IOException last = null;
    while (running) {
      for (InetSocketAddress address : order) {
        try {
          return Link.open(address, tls);
        } catch (IOException e) {
          last = e;
        }
      }
      expireWaiting(last);
      try {
        Thread.sleep(RETRY_MILLIS);
      } catch (InterruptedException e) {
        return null;
      }
    }
    return null;
  }

  /** Fails the requests that have waited for a server longer than the patience. */
  private void expireWaiting(IOException last) {
    long limit = patience.toNanos();
    long now = System.nanoTime();
    for (Pending p : outbox) {
      if (now - p.since > limit && outbox.remove(p)) {
        p.fail(
            "no Berth server answers at "
                + describe(servers)
                + " (waited "
                + patience.toSeconds()
                + " s"
                + (last == null ? "" : "; last: " + last.getMessage())
                + ")");
      }
    }
  }

  /**
   * After {@code l} broke: what it carried unanswered goes out again on the next link if that is
   * safe, and is answered with an error otherwise.
   */
  private void recall(Link l) {
    for (Pending p : pending.values()) {
      if (p.link != l || p.reply.isDone()) {
        continue;
      }
      p.link = null;
      if (p.resendable) {
        outbox.add(p);
      } else {
        p.fail(
            "the connection to the server at "
                + show(l.address)
                + " broke before it answered; the request may have taken effect");
      }
    }
  }

  private void failAll(String why) {
    for (Pending p : pending.values()) {
      p.fail(why);
    }
  }

  /**
   * Sends what the outbox holds on {@code l} until it breaks, its server steps down, or a request
   * sent on it waits longer than the reply timeout; a reader thread takes the answers meanwhile.
   */
  private void pump(Link l) {
    log.info("relaying to the server at {}", show(l.address));
    Thread reader = new Thread(() -> read(l), "berth-relay-reader");
    reader.setDaemon(true);
    reader.start();
    try {
      while (running && !l.broken) {
        Pending p = outbox.poll(RETRY_MILLIS, TimeUnit.MILLISECONDS);
        if (p != null && !p.reply.isDone()) {
          p.link = l;
          p.sentAt = System.nanoTime();
          p.frame.writeDelimitedTo(l.out);
          if (outbox.isEmpty()) {
            l.out.flush();
          }
        }
        if (overdue(l)) {
          log.warn(
              "the server at {} has not answered for {} s; trying the others",
              show(l.address),
              replyTimeout.toSeconds());
          return;
        }
      }
    } catch (IOException e) {
      log.info("the connection to the server at {} broke: {}", show(l.address), e.toString());
    } catch (InterruptedException e) {
      // closing
    } finally {
      l.close();
    }
  }

  private boolean overdue(Link l) {
    long now = System.nanoTime();
    for (Pending p : pending.values()) {
      long limit = p.wholeCommand() ? COMMAND_REPLY_LIMIT.toNanos() : replyTimeout.toNanos();
      if (p.link == l && !p.reply.isDone() && now - p.sentAt > limit) {
        return true;
      }
    }
    return false;
  }

  /**
   * How long a whole command (RunCommand) may take before its server counts as lost: it waits its
   * turn among the user's commands and may make many requests, so the reply timeout of one request
   * would drop a healthy link, and every other user's requests with it.
   */
  static final Duration COMMAND_REPLY_LIMIT = Duration.ofMinutes(10);

  /**
   * Takes the answers that come in on {@code l}; closes it when it ends or its server steps down.
   */
  private void read(Link l) {
    try {
      ServerFrame f;
      while ((f = Frames.read(l.in, ServerFrame.parser(), Frames.REPLY_LIMIT)) != null) {
        long id = f.hasResponse() ? f.getResponse().getId() : f.getOutputGrant().getId();
        Pending p = pending.get(id);
        if (p == null) {
          continue; // answered already (the relay stopped, or it expired)
        }
        if (p.resendable && f.hasResponse() && isStepDown(f.getResponse())) {
          log.info("the server at {} is stepping down; trying the others", show(l.address));
          return; // recall() sends it again on the next link
        }
        p.reply.complete(f);
      }
    } catch (IOException e) {
      if (!l.broken) {
        log.info("reading from the server at {} failed: {}", show(l.address), e.toString());
      }
    } finally {
      l.close();
    }
  }

  private static boolean isStepDown(Response r) {
    return r.getBodyCase() == Response.BodyCase.ERROR
        && r.getError().getCode() == Error.Code.SERVER_DOWN;
  }

  private static final class Link implements AutoCloseable {
    final InetSocketAddress address;
    final SSLSocket socket;
    final InputStream in;
    final OutputStream out;
    volatile boolean broken;

    private Link(InetSocketAddress address, SSLSocket socket) throws IOException {
      this.address = address;
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
      this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    }

    static Link open(InetSocketAddress address, SSLContext tls) throws IOException {
      // Users' scripts and environments go this way: only a server may hear them, however the
      // address was found (it is resolved at each attempt: a server's address may change).
      SSLSocket socket =
          TlsSockets.connect(
              tls,
              address,
              CONNECT_MILLIS,
              CONNECT_MILLIS,
              peer -> peer.role() == Role.SERVER,
              "a server");
      try {
        socket.setSoTimeout(0);
        socket.setKeepAlive(true);
        socket.setTcpNoDelay(true);
        return new Link(address, socket);
      } catch (IOException e) {
        socket.close();
        throw e;
      }
    }

    @Override
    public void close() {
      broken = true;
      try {
        socket.close();
      } catch (IOException ignored) {
        // gone either way
      }
    }
  }

  private static String describe(List<InetSocketAddress> addresses) {
    return addresses.stream().map(Upstream::show).collect(Collectors.joining(", "));
  }

  private static String show(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    Link l = link;
    if (l != null) {
      l.close();
    }
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    failAll("the relay is stopping");
  }
}
