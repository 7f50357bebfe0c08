package dev.berth.mom.tm;

import dev.berth.core.QuietLog;
import dev.berth.mom.os.PeerCredentials;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;

/**
 * The node's task-manager socket, one for every job this node is mother superior of. Which job a
 * connection belongs to is decided by what the kernel says about the connecting process ({@link
 * PeerCredentials}) as soon as it is accepted, before anything it sends is read: the one job that
 * admits it gets it ({@link TmEndpoint}), and a process no job admits is refused at once, so that
 * it holds nothing here. Nothing the process sends has a say, so a job's processes reach their own
 * job only. One socket for the node rather than one per job: a socket made and removed with every
 * job costs a file on the node's file system and a thread each time, which a node ending many short
 * jobs a second pays for in every job.
 *
 * <p>The socket is mode 0666, so any local user may connect: refusals are logged through a {@link
 * QuietLog}, by the process's user or job. What the jobs' connections hold is bounded by {@link
 * TmLimits} ({@link TmBudget}). The accept loop outlives a failing accept (out of file descriptors)
 * and ends only when the socket is closed.
 */
public final class TmSocket {
  /** How long accepting pauses after it failed (out of file descriptors, most likely). */
  static final Duration ACCEPT_PAUSE = Duration.ofMillis(500);

  /** Log lines about one user's or job's refusals of one kind come at most this often. */
  static final Duration QUIET = Duration.ofSeconds(10);

  private final Path path;
  private final ServerSocketChannel server;
  private final Logger log;
  private final TmBudget budget;
  private final QuietLog complaints;
  private final Map<String, TmEndpoint> jobs = new ConcurrentHashMap<>();

  /** The jobs' endpoints and those closed that still have connections, for the sweeper. */
  private final Set<TmEndpoint> endpoints = ConcurrentHashMap.newKeySet();

  private volatile boolean closed;

  private TmSocket(Path path, ServerSocketChannel server, Logger log, TmLimits limits) {
    this.path = path;
    this.server = server;
    this.log = log;
    this.budget = new TmBudget(limits);
    this.complaints = new QuietLog(log::warn, QUIET, () -> System.nanoTime() / 1_000_000);
  }

  /**
   * Binds {@code path} (a stale socket of an earlier mom process is replaced) in a directory only
   * the mom may write to, and starts accepting.
   */
  public static TmSocket open(Path path, Logger log) throws IOException {
    return open(path, log, TmLimits.DEFAULTS);
  }

  public static TmSocket open(Path path, Logger log, TmLimits limits) throws IOException {
    Files.deleteIfExists(path);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(path));
      // Anyone may connect; who may stay, and for which job, is decided per connection. The
      // directory is the mom's, so nobody can swap the file between bind and chmod.
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw-rw-"));
    } catch (IOException e) {
      server.close();
      throw e;
    }
    TmSocket socket = new TmSocket(path, server, log, limits);
    socket.start("tm-accept", socket::accept);
    socket.start("tm-sweep", socket::sweep);
    return socket;
  }

  private void start(String name, Runnable loop) {
    Thread t = new Thread(loop, name);
    t.setDaemon(true);
    t.start();
  }

  /** The socket's path, for the jobs' BERTH_TM_SOCKET. */
  public Path path() {
    return path;
  }

  /** What the jobs' connections hold now. */
  TmBudget budget() {
    return budget;
  }

  /**
   * Serves the task manager of job {@code jobId}: connections from the processes {@code admit}
   * accepts go to {@code handler} until the endpoint is closed.
   */
  public TmEndpoint serve(
      String jobId, Predicate<PeerCredentials.Peer> admit, TmEndpoint.Handler handler) {
    TmEndpoint endpoint =
        new TmEndpoint(jobId, admit, handler, budget, complaints, e -> jobs.remove(jobId, e));
    endpoints.add(endpoint);
    TmEndpoint earlier = jobs.put(jobId, endpoint);
    if (earlier != null) {
      earlier.close();
    }
    return endpoint;
  }

  /** Stops accepting and removes the socket; the jobs' endpoints close with their jobs. */
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      log.debug("closing {}: {}", path, e.getMessage());
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", path, e.getMessage());
    }
  }

  private void accept() {
    while (!closed) {
      SocketChannel channel;
      try {
        channel = server.accept();
      } catch (ClosedChannelException e) {
        return; // closed: the mom is stopping
      } catch (IOException e) {
        // Out of file descriptors, most likely (EMFILE, ENFILE): the connection waits in the
        // backlog until some are given back. A moment's pause instead of a busy loop.
        complaints.say(
            "node",
            "accept",
            "task manager socket "
                + path
                + ": cannot accept a connection ("
                + e.getMessage()
                + "); trying again every "
                + ACCEPT_PAUSE.toMillis()
                + " ms");
        pause();
        continue;
      }
      try {
        route(channel);
      } catch (RuntimeException e) {
        log.warn("task manager: dropped a connection after an internal error", e);
        TmEndpoint.reject(channel, "internal error: " + e);
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(ACCEPT_PAUSE.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Hands the connection to the one job that admits its process, or refuses it. */
  private void route(SocketChannel channel) {
    PeerCredentials.Peer peer;
    try {
      peer = PeerCredentials.of(channel);
    } catch (IOException e) {
      refuse(
          channel, "unknown", "peer", "cannot identify the connecting process: " + e.getMessage());
      return;
    }
    List<TmEndpoint> admitting = jobs.values().stream().filter(j -> j.admits(peer)).toList();
    if (admitting.size() == 1) {
      admitting.get(0).adopt(channel);
      return;
    }
    String who = "refused process " + peer.pid() + " (uid " + peer.uid() + "): ";
    String source = "uid " + peer.uid();
    if (admitting.isEmpty()) {
      refuse(channel, source, "no job", who + "it is not a process of a job this node runs");
    } else {
      refuse(
          channel,
          source,
          "several jobs",
          who
              + "it is a process of more than one job ("
              + String.join(", ", admitting.stream().map(TmEndpoint::jobId).sorted().toList())
              + ")");
    }
  }

  private void refuse(SocketChannel channel, String source, String kind, String why) {
    complaints.say(source, kind, "task manager: " + why);
    TmEndpoint.reject(channel, why);
  }

  /**
   * Every so often: requests past their deadline are refused, finished connections that do not take
   * their last answers are cut, and the log says how many refusals it held back.
   */
  private void sweep() {
    long every = Math.min(1000, budget.limits().frameDeadline().toMillis() / 2);
    while (!closed) {
      try {
        Thread.sleep(every);
      } catch (InterruptedException e) {
        return;
      }
      try {
        long now = System.nanoTime();
        for (TmEndpoint e : endpoints) {
          e.sweep(now);
          if (e.gone()) {
            endpoints.remove(e);
          }
        }
        complaints.sweep();
      } catch (RuntimeException e) {
        log.warn("task manager: sweeping the connections failed", e);
      }
    }
  }
}
