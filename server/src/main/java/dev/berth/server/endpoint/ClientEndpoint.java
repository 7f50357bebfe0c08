package dev.berth.server.endpoint;

import dev.berth.core.QuietLog;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.server.command.Caller;
import dev.berth.server.endpoint.ClientLimits.Limit;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's client socket: a Unix domain socket any local user may connect to, carrying
 * length-delimited {@link Request} and {@link Response} frames. The caller is whoever the kernel
 * says is on the other end (SO_PEERCRED). One selector thread does all socket I/O; each connection
 * has one request at a time in progress, so answers stay in order.
 *
 * <p>Nobody can make it hold much: what each user's clients hold (connections, requests, buffered
 * bytes, unread replies) is counted against {@link ClientLimits}, a client over a limit is
 * throttled and then dropped, and bad input closes that connection only. An error that could leave
 * the socket dead while the server looks alive (the selector failing, an {@link Error} such as
 * running out of memory) closes the socket and completes {@link #failure()}, on which the server
 * stops so that its supervisor starts it again.
 */
public final class ClientEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientEndpoint.class);

  private static final long SWEEP_MILLIS = 1000;
  private static final int ACCEPTS_PER_TURN = 64;

  /** Log lines about one user's clients and one limit come at most this often. */
  private static final Duration QUIET = Duration.ofSeconds(10);

  /** Answers one request for a caller; may complete on any thread. */
  public interface Handler {
    CompletionStage<Response> handle(Request request, Caller caller);
  }

  private record Task(ClientConnection connection, ClientConnection.Step step) {}

  private final Path socket;
  private final Handler handler;
  private final ClientLimits limits;
  private final String host;
  private final Selector selector;
  private final ServerSocketChannel server;
  private final SelectionKey serverKey;
  private final ClientBudgets budgets;
  private final QuietLog complaints;
  private final Set<ClientConnection> throttled = new LinkedHashSet<>();
  private final Queue<Task> tasks = new ConcurrentLinkedQueue<>();
  private final CompletableFuture<Throwable> failure = new CompletableFuture<>();
  private final ClientConnection.Owner owner = new Owner();
  private final Thread thread;
  private volatile boolean running = true;
  private long acceptPausedUntil;

  public ClientEndpoint(Path socket, Handler handler, ClientLimits limits, String host)
      throws IOException {
    this(
        socket,
        handler,
        limits,
        host,
        Set.copyOf(List.of("root", System.getProperty("user.name"))),
        log::warn);
  }

  /**
   * An endpoint that trusts {@code trusted} users (see {@link ClientBudgets}) and logs its lines
   * about throttled, dropped and refused clients to {@code warn}.
   */
  ClientEndpoint(
      Path socket,
      Handler handler,
      ClientLimits limits,
      String host,
      Set<String> trusted,
      Consumer<String> warn)
      throws IOException {
    this.socket = socket;
    this.handler = handler;
    this.limits = limits;
    this.host = host;
    this.complaints = new QuietLog(warn, QUIET, ClientEndpoint::now);
    this.budgets = new ClientBudgets(limits, trusted);
    Files.createDirectories(socket.getParent());
    Files.deleteIfExists(socket);
    selector = Selector.open();
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rwxrwxrwx"));
    server.configureBlocking(false);
    serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
    thread = new Thread(this::loop, "berth-client-endpoint");
    thread.setDaemon(true);
    thread.start();
  }

  public Path socket() {
    return socket;
  }

  /** The client connections open now (read on any thread). */
  public int openConnections() {
    return budgets.open();
  }

  /**
   * Completes with what stopped the socket, if anything does; the server must not run on without
   * it.
   */
  public CompletionStage<Throwable> failure() {
    return failure;
  }

  private void loop() {
    try {
      long lastSweep = now();
      while (running) {
        selector.select(SWEEP_MILLIS);
        runTasks();
        handleSelected();
        if (budgets.takeFreed()) {
          retryThrottled();
        }
        long now = now();
        if (now - lastSweep >= SWEEP_MILLIS) {
          sweep(now);
          lastSweep = now;
        }
      }
    } catch (Throwable e) {
      // The selector itself failed, or an Error struck (out of memory, a class that does not
      // load). A connection's own troubles are handled in step(); carrying on after these could
      // leave a socket that accepts and never answers.
      fail(e);
    }
  }

  private void runTasks() {
    Task task;
    while ((task = tasks.poll()) != null) {
      step(task.connection(), task.step());
    }
  }

  private void handleSelected() {
    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
    while (keys.hasNext()) {
      SelectionKey key = keys.next();
      keys.remove();
      if (!key.isValid()) {
        continue;
      }
      if (key == serverKey) {
        accept();
      } else if (key.attachment() instanceof ClientConnection c) {
        step(
            c,
            () -> {
              if (key.isReadable()) {
                c.readable();
              }
              if (key.isValid() && key.isWritable()) {
                c.writable();
              }
            });
      }
    }
  }

  /** Runs a connection's step; whatever goes wrong with it ends that connection only. */
  private void step(ClientConnection c, ClientConnection.Step step) {
    try {
      step.run();
    } catch (IOException e) {
      c.close(); // the client went away or broke the connection
    } catch (RuntimeException e) {
      log.warn("closing a connection of user {} after an internal error", c.user(), e);
      c.close();
    }
  }

  /** Takes the clients waiting to connect, a bounded number at a time so the others get a turn. */
  private void accept() {
    for (int i = 0; i < ACCEPTS_PER_TURN; i++) {
      SocketChannel channel;
      try {
        channel = server.accept();
      } catch (IOException e) {
        // Out of file descriptors, most likely: the pending client would wake the selector at
        // once, again and again. Stop accepting for a moment; the sweep takes it up again.
        log.warn("cannot accept clients ({}); trying again in a second", e.toString());
        serverKey.interestOps(0);
        acceptPausedUntil = now() + SWEEP_MILLIS;
        return;
      }
      if (channel == null) {
        return;
      }
      try {
        admit(channel);
      } catch (IOException | RuntimeException e) {
        log.warn("dropping a new client: {}", e.toString());
        closeQuietly(channel);
      }
    }
  }

  private void admit(SocketChannel channel) throws IOException {
    UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
    String user = peer.user().getName();
    channel.configureBlocking(false);
    Limit refusal = budgets.refusal(user);
    if (refusal != null) {
      refuse(channel, user, refusal);
      return;
    }
    SelectionKey key = channel.register(selector, 0);
    ClientConnection c =
        new ClientConnection(
            key, new Caller(user, peer.group().getName(), host), budgets.connect(user), owner);
    key.attach(c);
    step(c, c::advance);
  }

  /** Tells the client why (the socket's buffer is empty: one write takes it) and hangs up. */
  private void refuse(SocketChannel channel, String user, Limit limit) {
    String why =
        (limit == Limit.USER_CONNECTIONS
                ? "user " + user + " has " + limits.userConnections() + " connections open"
                : budgets.connections() + " clients are connected")
            + " (limit "
            + limits.describe(limit)
            + ")";
    complaints.say("user " + user, limit.setting, "refused a connection: " + why);
    FrameWriter refusal = new FrameWriter();
    refusal.add(ErrorResponses.error(0, Error.Code.SYSTEM, "too many connections: " + why));
    try {
      refusal.writeTo(channel);
    } catch (IOException ignored) {
      // the client did not wait to hear it
    } finally {
      closeQuietly(channel);
    }
  }

  private void retryThrottled() {
    List<ClientConnection> waiting = new ArrayList<>(throttled);
    throttled.clear();
    for (ClientConnection c : waiting) {
      step(c, c::advance);
    }
  }

  private void sweep(long now) {
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof ClientConnection c) {
        step(c, () -> c.sweep(now));
      }
    }
    complaints.sweep();
    if (acceptPausedUntil != 0 && now >= acceptPausedUntil) {
      acceptPausedUntil = 0;
      serverKey.interestOps(SelectionKey.OP_ACCEPT);
    }
  }

  private void fail(Throwable e) {
    running = false;
    try {
      closeChannels(); // clients find the socket gone instead of one that never answers
    } finally {
      failure.complete(e);
      log.error(
          "the client socket failed; the server stops so that its supervisor starts it again", e);
    }
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
    closeChannels();
  }

  private void closeChannels() {
    try {
      if (selector.isOpen()) {
        for (SelectionKey key : selector.keys()) {
          key.channel().close();
        }
        selector.close();
      }
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      log.warn("closing the client socket: {}", e.getMessage());
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing more to do with it
    }
  }

  private static long now() {
    return System.nanoTime() / 1_000_000;
  }

  /** The endpoint's side of its connections, on the selector thread unless said otherwise. */
  private final class Owner implements ClientConnection.Owner {
    @Override
    public void execute(ClientConnection c, ClientConnection.Step step) {
      tasks.add(new Task(c, step));
      selector.wakeup();
    }

    @Override
    public void throttled(ClientConnection c) {
      throttled.add(c);
    }

    @Override
    public Handler handler() {
      return handler;
    }

    @Override
    public ClientLimits limits() {
      return limits;
    }

    @Override
    public QuietLog complaints() {
      return complaints;
    }

    @Override
    public long now() {
      return ClientEndpoint.now();
    }
  }
}
