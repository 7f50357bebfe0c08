package dev.berth.client;

import dev.berth.core.Frames;
import dev.berth.core.ServerLocation;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connection to the Berth server: length-delimited Protobuf frames over its Unix socket. One
 * request at a time; the server identifies the caller from the socket, so nothing here says who the
 * caller is.
 */
public final class BerthClient implements ServerConnection {
  private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  /**
   * Sockets whose server broke a call or did not answer in time, in this process: a later
   * connection tries the others first (a paused former server still accepts connections).
   */
  private static final Set<Path> FAILED = ConcurrentHashMap.newKeySet();

  /**
   * Closes connections whose reply is overdue. A holder class, so that a command talking to one
   * server (no reply timeout) never loads or builds it: every command's start-up pays for what is
   * loaded here.
   */
  private static final class Watchdog {
    static final ScheduledExecutorService TIMER =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-client-watchdog");
              t.setDaemon(true);
              return t;
            });
  }

  private final Path socket;
  private final SocketChannel channel;
  private final InputStream in;
  private final OutputStream out;
  private final Duration replyTimeout;
  private long nextId = 1;

  private BerthClient(Path socket, SocketChannel channel, Duration replyTimeout) {
    this.socket = socket;
    this.channel = channel;
    this.replyTimeout = replyTimeout;
    this.in = new BufferedInputStream(Channels.newInputStream(channel), 1 << 16);
    this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
  }

  /** Connects to the server the environment points at (see {@link ServerLocation}). */
  public static BerthClient connect() throws ServerUnavailableException {
    return connect(ServerLocation.clientSocket(System.getenv()));
  }

  public static BerthClient connect(Path socket) throws ServerUnavailableException {
    try {
      return open(socket, null);
    } catch (IOException e) {
      throw new ServerUnavailableException(socket, e);
    }
  }

  /**
   * Connects to the first of {@code sockets} that answers: an active server and its standbys, of
   * which only the active one listens. While none does (a takeover takes some seconds) it tries
   * again until {@code patience} has passed. A call on the connection that gets no reply within
   * {@code replyTimeout} (null: no limit) fails, so that a command does not hang on a paused
   * server.
   */
  public static BerthClient connect(List<Path> sockets, Duration patience, Duration replyTimeout)
      throws ServerUnavailableException {
    List<Path> order = new java.util.ArrayList<>(sockets);
    order.sort(java.util.Comparator.comparing(FAILED::contains)); // stable: failed ones last
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      IOException last = null;
      for (Path socket : order) {
        try {
          return open(socket, replyTimeout);
        } catch (IOException e) {
          last = e;
        }
      }
      if (System.nanoTime() >= deadline) {
        throw new ServerUnavailableException(sockets, last);
      }
      try {
        Thread.sleep(RETRY_PAUSE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServerUnavailableException(sockets, last);
      }
    }
  }

  private static BerthClient open(Path socket, Duration replyTimeout) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      channel.connect(UnixDomainSocketAddress.of(socket));
      return new BerthClient(socket, channel, replyTimeout);
    } catch (IOException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  /** Sends one request and waits for its response. */
  @Override
  public Response call(Request.Builder request) throws ServerUnavailableException {
    long id = nextId++;
    // Closing the channel wakes the blocked read below with an exception.
    java.util.concurrent.atomic.AtomicBoolean timedOut =
        new java.util.concurrent.atomic.AtomicBoolean();
    ScheduledFuture<?> watchdog =
        replyTimeout == null
            ? null
            : Watchdog.TIMER.schedule(
                () -> {
                  timedOut.set(true); // before the close wakes the reader
                  closeQuietly(channel);
                },
                replyTimeout.toMillis(),
                TimeUnit.MILLISECONDS);
    try {
      request.setId(id).build().writeDelimitedTo(out);
      out.flush();
      Response response = Frames.read(in, Response.parser(), Frames.REPLY_LIMIT);
      if (response == null) {
        throw new IOException("the server closed the connection without answering");
      }
      if (response.getId() != id) {
        throw new IOException("reply " + response.getId() + " does not answer request " + id);
      }
      return response;
    } catch (IOException e) {
      FAILED.add(socket);
      if (timedOut.get()) {
        throw new ServerUnavailableException(
            socket, new IOException("no reply within " + replyTimeout.toSeconds() + " s", e));
      }
      throw new ServerUnavailableException(socket, e);
    } finally {
      if (watchdog != null) {
        watchdog.cancel(false);
      }
    }
  }

  public Path socket() {
    return socket;
  }

  @Override
  public void close() {
    closeQuietly(channel);
  }

  private static void closeQuietly(SocketChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing to do: the connection is gone either way
      }
    }
  }
}
