package dev.berth.mom.tm;

import com.google.protobuf.CodedInputStream;
import dev.berth.core.QuietLog;
import dev.berth.mom.os.PeerCredentials;
import dev.berth.mom.output.Outlet;
import dev.berth.proto.TmError;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One job's task manager on its mother superior: the connections {@link TmSocket} found to be the
 * job's, checked by what the kernel says about the connecting process ({@link PeerCredentials}),
 * never by what it sends. Their requests go to a {@link Handler}, and answers go back through an
 * {@link Outlet} per connection. Each connection has a thread reading it and one writing to it.
 *
 * <p>What the connections make the mom hold is counted in the node's {@link TmBudget}: a request
 * from its first byte until the handler is done with it, an answer until it is written. A request
 * that does not arrive whole within the deadline (waiting for room included), or that is larger or
 * costs more than a request may, is refused with an error that says why, and its connection closed;
 * so is a connection whose process leaves its answers unread past the budget. Refusals are logged
 * through the node's {@link QuietLog}, a line per job and kind of refusal at most so often.
 */
public final class TmEndpoint {
  /** How long a closed connection may take to write its last answers before it is cut. */
  static final Duration LINGER = Duration.ofSeconds(5);

  /** Where admitted requests go; called on the connections' threads. */
  public interface Handler {
    /**
     * A request of {@code connection}; {@code done} must run once the task manager no longer holds
     * it (a spawn: once its node has started the task), and may run more than once.
     */
    void request(long connection, TmRequest request, Runnable done);

    void closed(long connection);
  }

  /** One connection, and where it stands. */
  private final class Link {
    final long id;
    final SocketChannel channel;
    final TmBudget.Connection budget;
    final AtomicBoolean finished = new AtomicBoolean();
    Outlet outlet;

    /** When the request being read began ({@link System#nanoTime()}), 0 between requests. */
    volatile long frameStarted;

    /** When the connection was finished, 0 while it is open. */
    volatile long finishedAt;

    Link(long id, SocketChannel channel, TmBudget.Connection budget) {
      this.id = id;
      this.channel = channel;
      this.budget = budget;
    }

    /** Sends the error {@code why} (when not null), the answers before it, and then closes. */
    void finish(String why) {
      if (finished.compareAndSet(false, true)) {
        if (why != null) {
          outlet.offer(frame(error(why)), () -> {});
        }
        outlet.close();
        finishedAt = Math.max(1, System.nanoTime());
      }
    }

    /** Closes at once, dropping the answers not yet written. */
    void cut() {
      closeQuietly(channel);
      finish(null);
    }
  }

  private final String jobId;
  private final Predicate<PeerCredentials.Peer> admit;
  private final Handler handler;
  private final TmLimits limits;
  private final TmBudget.Job budget;
  private final QuietLog complaints;
  private final Consumer<TmEndpoint> onClose;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Link> connections = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param admit whether a connecting process is one of the job's
   * @param budget the node's, which the job's account is opened in
   * @param complaints where refusals are logged
   * @param onClose run once when the endpoint closes (the node's socket routes no more to it)
   */
  TmEndpoint(
      String jobId,
      Predicate<PeerCredentials.Peer> admit,
      Handler handler,
      TmBudget budget,
      QuietLog complaints,
      Consumer<TmEndpoint> onClose) {
    this.jobId = jobId;
    this.admit = admit;
    this.handler = handler;
    this.limits = budget.limits();
    this.budget = budget.job(jobId);
    this.complaints = complaints;
    this.onClose = onClose;
  }

  String jobId() {
    return jobId;
  }

  /** Whether {@code peer} is a process of this job (an open endpoint's). */
  boolean admits(PeerCredentials.Peer peer) {
    return !closed && admit.test(peer);
  }

  /**
   * Sends {@code response}; {@code after} runs once it is written, or dropped with the connection.
   * A connection whose answers do not fit the budget (its process does not read them) is cut.
   */
  void send(long connection, TmResponse response, Runnable after) {
    Link link = connections.get(connection);
    if (link == null) {
      after.run();
      return;
    }
    byte[] frame = frame(response);
    try {
      budget.takeReply(frame.length);
    } catch (TmBudget.Refused full) {
      complain(
          full.limit().setting,
          "cut a connection that leaves its answers unread: " + full.getMessage());
      link.cut();
      after.run();
      return;
    }
    link.outlet.offer(
        frame,
        () -> {
          budget.releaseReply(frame.length);
          after.run();
        });
  }

  void send(long connection, TmResponse response) {
    send(connection, response, () -> {});
  }

  /** Closes every connection and takes no more (the job has ended). */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    onClose.accept(this);
    budget.close();
    connections.values().forEach(l -> l.finish(null));
  }

  /** Whether the endpoint is closed and its connections are all gone. */
  boolean gone() {
    return closed && connections.isEmpty();
  }

  /**
   * Refuses requests that have been arriving for longer than the deadline (their readers are stuck
   * in a read), and cuts finished connections that still have answers to write after {@link
   * #LINGER}.
   */
  void sweep(long now) {
    for (Link link : connections.values()) {
      long started = link.frameStarted;
      long finished = link.finishedAt;
      if (finished != 0) {
        if (now - finished > LINGER.toNanos()) {
          closeQuietly(link.channel);
        }
      } else if (started != 0 && now - started > limits.frameDeadline().toNanos()) {
        String why =
            "a request did not arrive whole within "
                + limits.frameDeadline().toSeconds()
                + " s of its first byte";
        complain("deadline", "refused a connection: " + why);
        link.finish(why);
        try {
          link.channel.shutdownInput(); // its reader, stuck in a read, sees the end
        } catch (IOException e) {
          closeQuietly(link.channel);
        }
      }
    }
  }

  /** Takes a connection the node's socket found to come from a process of this job. */
  void adopt(SocketChannel channel) {
    TmBudget.Connection held;
    try {
      held = budget.open();
    } catch (TmBudget.Refused refused) {
      complain(refused.limit().setting, "refused a connection: " + refused.getMessage());
      reject(channel, refused.getMessage());
      return;
    }
    Link link = new Link(ids.incrementAndGet(), channel, held);
    try {
      link.outlet = outlet(link);
      connections.put(link.id, link);
      Thread reader = new Thread(() -> read(link), "tm-" + jobId + "-" + link.id);
      reader.setDaemon(true);
      reader.start();
    } catch (OutOfMemoryError e) { // no thread to be had: the mom's task limit, most likely
      complain("threads", "refused a connection: " + e.getMessage());
      if (link.outlet == null) {
        closeQuietly(channel);
        held.close();
      } else {
        link.cut();
      }
      return;
    }
    if (closed) { // closed while this connection was being added: close() may have missed it
      link.finish(null);
    }
  }

  private Outlet outlet(Link link) {
    return new Outlet(
        "tm-" + jobId + "-" + link.id + "-out",
        new Outlet.Destination() {
          @Override
          public void write(byte[] data) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
              link.channel.write(b);
            }
          }

          @Override
          public void close() {
            closeQuietly(link.channel);
            connections.remove(link.id);
            link.budget.close();
          }
        },
        e -> link.cut()); // its reader ends, and the job hears the connection closed
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // closing a connection nobody will use
    }
  }

  /** Tells a connection why it is refused, and closes it. */
  static void reject(SocketChannel channel, String why) {
    try (channel) {
      error(why).writeDelimitedTo(Channels.newOutputStream(channel));
    } catch (IOException e) {
      // the peer is gone already
    }
  }

  private void read(Link link) {
    String why = null;
    // Not closed here: the outlet closes the channel once the last answer (a refusal) is written.
    InputStream in = Channels.newInputStream(link.channel);
    try {
      while (why == null) {
        int first = in.read();
        if (first < 0) {
          break;
        }
        link.frameStarted = Math.max(1, System.nanoTime());
        why = request(link, in, CodedInputStream.readRawVarint32(first, in));
        link.frameStarted = 0;
      }
    } catch (IOException e) {
      // the peer went away mid-frame, or the job ended and the connection was closed
    }
    link.finish(why);
    handler.closed(link.id);
  }

  /**
   * Reads one request of {@code size} bytes and hands it on; why the connection is refused, or
   * null.
   */
  private String request(Link link, InputStream in, int size) throws IOException {
    if (size < 0 || size > limits.frameBytes()) {
      String why =
          "a request of "
              + Integer.toUnsignedString(size)
              + " bytes is over the limit of "
              + TmLimits.size(limits.frameBytes());
      complain("frame", "refused a connection: " + why);
      return why;
    }
    long deadline = link.frameStarted + limits.frameDeadline().toNanos();
    TmFrame.Read read;
    try {
      read = TmFrame.read(in, size, link.budget, deadline, limits.frameBytes());
    } catch (TmBudget.Refused full) {
      if (full.limit() == TmBudget.Limit.JOB_ENDED) {
        return full.getMessage();
      }
      String why =
          "no room for a request within "
              + limits.frameDeadline().toSeconds()
              + " s: "
              + full.getMessage();
      complain(full.limit().setting, "refused a connection: " + why);
      return why;
    } catch (TmFrame.Bad bad) {
      complain("request", "refused a connection: " + bad.getMessage());
      return bad.getMessage();
    }
    AtomicBoolean released = new AtomicBoolean();
    handler.request(
        link.id,
        read.request(),
        () -> {
          if (released.compareAndSet(false, true)) {
            link.budget.release(read.held());
          }
        });
    return null;
  }

  private void complain(String kind, String line) {
    complaints.say("job " + jobId, kind, "task manager of job " + jobId + ": " + line);
  }

  private static byte[] frame(TmResponse response) {
    ByteArrayOutputStream frame = new ByteArrayOutputStream(response.getSerializedSize() + 5);
    try {
      response.writeDelimitedTo(frame);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory cannot fail", e);
    }
    return frame.toByteArray();
  }

  private static TmResponse error(String message) {
    return TmResponse.newBuilder().setError(TmError.newBuilder().setMessage(message)).build();
  }
}
