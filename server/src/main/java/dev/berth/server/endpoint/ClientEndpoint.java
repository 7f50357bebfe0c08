package dev.berth.server.endpoint;

import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.server.command.Caller;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's client socket: a Unix domain socket any local user may connect to, carrying
 * length-delimited {@link Request} and {@link Response} frames. The caller is whoever the kernel
 * says is on the other end (SO_PEERCRED). One selector thread does all socket I/O; a connection
 * sends its next request only after it has the answer to the previous one, so answers stay in
 * order. Bad input closes that connection, never the server.
 */
public final class ClientEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientEndpoint.class);

  /** Answers one request for a caller; may complete on any thread. */
  public interface Handler {
    CompletionStage<Response> handle(Request request, Caller caller);
  }

  /**
   * @param maxFrameBytes requests larger than this are refused and the connection closed
   * @param idleMillis a connection that sends nothing (or only part of a frame) for this long is
   *     closed
   */
  public record Limits(int maxFrameBytes, long idleMillis, int maxConnections) {
    public static final Limits DEFAULT = new Limits(16 << 20, 300_000, 4096);
  }

  private final Path socket;
  private final Handler handler;
  private final Limits limits;
  private final String host;
  private final Selector selector;
  private final ServerSocketChannel server;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private volatile boolean running = true;
  private int connections;

  public ClientEndpoint(Path socket, Handler handler, Limits limits, String host)
      throws IOException {
    this.socket = socket;
    this.handler = handler;
    this.limits = limits;
    this.host = host;
    Files.createDirectories(socket.getParent());
    Files.deleteIfExists(socket);
    selector = Selector.open();
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rwxrwxrwx"));
    server.configureBlocking(false);
    server.register(selector, SelectionKey.OP_ACCEPT);
    thread = new Thread(this::loop, "berth-client-endpoint");
    thread.setDaemon(true);
    thread.start();
  }

  public Path socket() {
    return socket;
  }

  private void loop() {
    long lastSweep = System.currentTimeMillis();
    while (running) {
      try {
        selector.select(1000);
        Runnable task;
        while ((task = tasks.poll()) != null) {
          task.run();
        }
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
          SelectionKey key = keys.next();
          keys.remove();
          handle(key);
        }
        long now = System.currentTimeMillis();
        if (now - lastSweep > 1000) {
          closeIdle(now);
          lastSweep = now;
        }
      } catch (IOException | RuntimeException e) {
        log.error("client endpoint error", e);
      }
    }
  }

  private void handle(SelectionKey key) {
    if (!key.isValid()) {
      return;
    }
    try {
      if (key.isAcceptable()) {
        accept();
        return;
      }
      Connection c = (Connection) key.attachment();
      if (key.isReadable()) {
        c.read();
      }
      if (key.isValid() && key.isWritable()) {
        c.flush();
      }
    } catch (IOException e) {
      close(key);
    }
  }

  private void accept() throws IOException {
    SocketChannel channel = server.accept();
    if (channel == null) {
      return;
    }
    if (connections >= limits.maxConnections()) {
      log.warn("refusing a client: {} connections are open", connections);
      channel.close();
      return;
    }
    UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
    Caller caller = new Caller(peer.user().getName(), peer.group().getName(), host);
    channel.configureBlocking(false);
    SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
    key.attach(new Connection(key, channel, caller));
    connections++;
  }

  private void closeIdle(long now) {
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof Connection c && c.idleSince(now) > limits.idleMillis()) {
        close(key);
      }
    }
  }

  private void close(SelectionKey key) {
    key.cancel();
    try {
      key.channel().close();
    } catch (IOException ignored) {
      // already gone
    }
    if (key.attachment() instanceof Connection) {
      connections--;
      key.attach(null);
    }
  }

  /** Runs on the selector thread. */
  private void execute(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  @Override
  public void close() {
    running = false;
    selector.wakeup();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      for (SelectionKey key : selector.keys()) {
        key.channel().close();
      }
      selector.close();
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      log.warn("closing the client socket: {}", e.getMessage());
    }
  }

  /** One client connection: reassembles frames and writes answers, on the selector thread. */
  private final class Connection {
    private final SelectionKey key;
    private final SocketChannel channel;
    private final Caller caller;
    private final FrameReader reader;
    private final FrameWriter writer = new FrameWriter();
    private boolean busy;
    private boolean closeAfterWrite;
    private long lastActivity = System.currentTimeMillis();

    Connection(SelectionKey key, SocketChannel channel, Caller caller) {
      this.key = key;
      this.channel = channel;
      this.caller = caller;
      this.reader = new FrameReader(limits.maxFrameBytes());
    }

    long idleSince(long now) {
      return busy ? 0 : now - lastActivity;
    }

    void read() throws IOException {
      int n = reader.readFrom(channel);
      if (n < 0) {
        close(key); // the client went away, possibly in the middle of a frame
        return;
      }
      lastActivity = System.currentTimeMillis();
      next();
    }

    /** Starts on the next complete frame, if the previous request has been answered. */
    private void next() {
      if (busy || closeAfterWrite) {
        return;
      }
      FrameReader.Frame frame;
      try {
        frame = reader.poll();
      } catch (FrameReader.FrameException e) {
        refuse(e.code(), e.getMessage());
        return;
      }
      if (frame == null) {
        return;
      }
      Request request;
      try {
        request = Request.parseFrom(frame.bytes());
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        refuse(
            Error.Code.PROTOCOL,
            "the request is not a valid Berth request frame: " + e.getMessage());
        return;
      }
      if (request.getBodyCase() == Request.BodyCase.BODY_NOT_SET) {
        answer(
            error(
                request.getId(),
                Error.Code.UNKNOWN_REQUEST,
                "unknown request type (from a newer client?); this server does not know it"));
        return;
      }
      busy = true;
      CompletionStage<Response> answer;
      try {
        answer = handler.handle(request, caller);
      } catch (RuntimeException e) {
        log.error("request {} failed", request.getBodyCase(), e);
        answer =
            java.util.concurrent.CompletableFuture.completedFuture(
                error(request.getId(), Error.Code.INTERNAL, "internal error: " + e.getMessage()));
      }
      answer.whenComplete(
          (response, failure) -> {
            Response r =
                failure == null
                    ? response.toBuilder().setId(request.getId()).build()
                    : error(
                        request.getId(),
                        Error.Code.INTERNAL,
                        "internal error: " + failure.getMessage());
            execute(
                () -> {
                  busy = false;
                  answer(r);
                });
          });
    }

    private void refuse(Error.Code code, String message) {
      closeAfterWrite = true;
      answer(error(0, code, message));
    }

    private void answer(Response response) {
      if (!key.isValid()) {
        return;
      }
      writer.add(response);
      try {
        flush();
      } catch (IOException e) {
        close(key);
        return;
      }
      next();
    }

    void flush() throws IOException {
      boolean done = writer.writeTo(channel);
      lastActivity = System.currentTimeMillis();
      if (done && closeAfterWrite) {
        close(key);
      } else if (key.isValid()) {
        key.interestOps(done ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
      }
    }
  }

  private static Response error(long id, Error.Code code, String message) {
    return Response.newBuilder()
        .setId(id)
        .setError(Error.newBuilder().setCode(code).setMessage(message))
        .build();
  }
}
