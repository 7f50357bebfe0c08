package dev.berth.mom;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.berth.mom.os.PeerCredentials;
import dev.berth.proto.TmError;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;

/**
 * One job's task manager on its mother superior: the connections {@link TmSocket} found to be the
 * job's, checked by what the kernel says about the connecting process ({@link PeerCredentials}),
 * never by what it sends. Their requests go to a {@link Handler}, and answers go back through an
 * {@link Outlet} per connection. Each connection has a thread reading it; there are few (a pbsdsh,
 * one pbs_tmrsh per node an MPI launch reaches).
 */
final class TmEndpoint {
  /** Largest request accepted: a spawn carries an environment, which can be large, but not this. */
  static final int MAX_FRAME = 4 << 20;

  /** Connections one job may hold open at once (each has a thread here). */
  static final int MAX_CONNECTIONS = 512;

  /** Where admitted requests go; called on the connections' threads. */
  interface Handler {
    void request(long connection, TmRequest request);

    void closed(long connection);
  }

  private record Connection(SocketChannel channel, Outlet outlet) {}

  private final String jobId;
  private final Predicate<PeerCredentials.Peer> admit;
  private final Handler handler;
  private final Logger log;
  private final Consumer<TmEndpoint> onClose;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Connection> connections = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param admit whether a connecting process is one of the job's
   * @param onClose run once when the endpoint closes (the node's socket forgets the job)
   */
  TmEndpoint(
      String jobId,
      Predicate<PeerCredentials.Peer> admit,
      Handler handler,
      Logger log,
      Consumer<TmEndpoint> onClose) {
    this.jobId = jobId;
    this.admit = admit;
    this.handler = handler;
    this.log = log;
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
   */
  void send(long connection, TmResponse response, Runnable after) {
    Connection c = connections.get(connection);
    if (c == null) {
      after.run();
      return;
    }
    ByteArrayOutputStream frame = new ByteArrayOutputStream(response.getSerializedSize() + 5);
    try {
      response.writeDelimitedTo(frame);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory cannot fail", e);
    }
    c.outlet().offer(frame.toByteArray(), after);
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
    connections.values().forEach(c -> c.outlet().close());
  }

  /** Takes a connection the node's socket found to come from a process of this job. */
  void adopt(SocketChannel channel) {
    if (closed) {
      reject(channel, "the job " + jobId + " has ended");
      return;
    }
    if (connections.size() >= MAX_CONNECTIONS) {
      String why = "the job has " + MAX_CONNECTIONS + " task manager connections open already";
      log.warn("task manager of job {}: {}", jobId, why);
      reject(channel, why);
      return;
    }
    long id = ids.incrementAndGet();
    Outlet outlet =
        new Outlet(
            "tm-" + jobId + "-" + id + "-out",
            new Outlet.Destination() {
              @Override
              public void write(byte[] data) throws IOException {
                ByteBuffer b = ByteBuffer.wrap(data);
                while (b.hasRemaining()) {
                  channel.write(b);
                }
              }

              @Override
              public void close() throws IOException {
                channel.close();
              }
            },
            e -> {
              log.debug("task manager connection {} broke: {}", id, e.getMessage());
              close(channel); // its reader thread ends, and the job hears the connection closed
            });
    connections.put(id, new Connection(channel, outlet));
    if (closed) { // closed while this connection was being added: close() may have missed it
      connections.remove(id);
      outlet.close();
      return;
    }
    Thread reader = new Thread(() -> read(id, channel), "tm-" + jobId + "-" + id);
    reader.setDaemon(true);
    reader.start();
  }

  private static void close(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // closing a connection nobody will use
    }
  }

  /** Tells a connection why it is refused, and closes it. */
  static void reject(SocketChannel channel, String why) {
    try (channel) {
      TmResponse.newBuilder()
          .setError(TmError.newBuilder().setMessage(why))
          .build()
          .writeDelimitedTo(Channels.newOutputStream(channel));
    } catch (IOException e) {
      // the peer is gone already
    }
  }

  private void read(long id, SocketChannel channel) {
    try (InputStream in = Channels.newInputStream(channel)) {
      while (true) {
        int first = in.read();
        if (first < 0) {
          break;
        }
        int size = CodedInputStream.readRawVarint32(first, in);
        if (size < 0 || size > MAX_FRAME) {
          send(id, error("frame of " + size + " bytes is over the limit of " + MAX_FRAME));
          break;
        }
        byte[] bytes = in.readNBytes(size);
        if (bytes.length < size) {
          break;
        }
        TmRequest request;
        try {
          request = TmRequest.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
          send(id, error("malformed request: " + e.getMessage()));
          break;
        }
        handler.request(id, request);
      }
    } catch (IOException e) {
      // the peer went away mid-frame, or the job ended and the connection was closed
    }
    Connection c = connections.remove(id);
    if (c != null) {
      c.outlet().close();
    }
    handler.closed(id);
  }

  private static TmResponse error(String message) {
    return TmResponse.newBuilder().setError(TmError.newBuilder().setMessage(message)).build();
  }
}
