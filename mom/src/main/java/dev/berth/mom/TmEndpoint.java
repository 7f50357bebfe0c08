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
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;

/**
 * One job's task-manager socket on its mother superior. Whoever connects is checked by what the
 * kernel says about the connecting process ({@link PeerCredentials}), never by what it sends; the
 * admitted connection's requests go to a {@link Handler}, and answers go back through an {@link
 * Outlet} per connection. Each connection has a thread reading it; there are few (a pbsdsh, one
 * pbs_tmrsh per node an MPI launch reaches).
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

  private final Path socket;
  private final ServerSocketChannel server;
  private final Predicate<PeerCredentials.Peer> admit;
  private final Handler handler;
  private final Logger log;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Connection> connections = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private TmEndpoint(
      Path socket,
      ServerSocketChannel server,
      Predicate<PeerCredentials.Peer> admit,
      Handler handler,
      Logger log) {
    this.socket = socket;
    this.server = server;
    this.admit = admit;
    this.handler = handler;
    this.log = log;
  }

  /**
   * Binds {@code socket} (a stale file from an earlier mom process is replaced) in a directory only
   * the mom may write to, and starts accepting.
   */
  static TmEndpoint open(
      Path socket, Predicate<PeerCredentials.Peer> admit, Handler handler, Logger log)
      throws IOException {
    Files.deleteIfExists(socket);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(socket));
      // Anyone may connect; who may stay is decided per connection. The directory is the mom's,
      // so nobody can swap the file between bind and chmod.
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    } catch (IOException e) {
      server.close();
      throw e;
    }
    TmEndpoint endpoint = new TmEndpoint(socket, server, admit, handler, log);
    Thread acceptor = new Thread(endpoint::accept, "tm-" + socket.getFileName());
    acceptor.setDaemon(true);
    acceptor.start();
    return endpoint;
  }

  Path socket() {
    return socket;
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

  /** Closes the socket and every connection (the job has ended). */
  void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      log.debug("closing {}: {}", socket, e.getMessage());
    }
    connections.values().forEach(c -> c.outlet().close());
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", socket, e.getMessage());
    }
  }

  private void accept() {
    while (!closed) {
      SocketChannel channel;
      try {
        channel = server.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("task manager socket {} failed: {}", socket, e.getMessage());
        }
        return;
      }
      if (closed) {
        close(channel);
        return;
      }
      String refused =
          connections.size() >= MAX_CONNECTIONS
              ? "the job has " + MAX_CONNECTIONS + " task manager connections open already"
              : check(channel);
      if (!refused.isEmpty()) {
        log.warn("task manager {}: {}", socket.getFileName(), refused);
        reject(channel, refused);
        continue;
      }
      long id = ids.incrementAndGet();
      Outlet outlet =
          new Outlet(
              "tm-" + socket.getFileName() + "-" + id + "-out",
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
      Thread reader = new Thread(() -> read(id, channel), "tm-" + socket.getFileName() + "-" + id);
      reader.setDaemon(true);
      reader.start();
    }
  }

  private static void close(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // closing a connection nobody will use
    }
  }

  private String check(SocketChannel channel) {
    try {
      PeerCredentials.Peer peer = PeerCredentials.of(channel);
      if (!admit.test(peer)) {
        return "refused process "
            + peer.pid()
            + " (uid "
            + peer.uid()
            + "): it is not a process of this job";
      }
      return "";
    } catch (IOException e) {
      return "cannot identify the connecting process: " + e.getMessage();
    }
  }

  private void reject(SocketChannel channel, String why) {
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
