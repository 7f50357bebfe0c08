package dev.berth.mom;

import dev.berth.mom.os.PeerCredentials;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;

/**
 * The node's task-manager socket, one for every job this node is mother superior of. Which job a
 * connection belongs to is decided by what the kernel says about the connecting process ({@link
 * PeerCredentials}): the one job that admits it gets it ({@link TmEndpoint}), and a process no job
 * admits is refused. Nothing the process sends has a say, so a job's processes reach their own job
 * only. One socket for the node rather than one per job: a socket made and removed with every job
 * costs a file on the node's file system and a thread each time, which a node ending many short
 * jobs a second pays for in every job.
 */
final class TmSocket {
  private final Path path;
  private final ServerSocketChannel server;
  private final Logger log;
  private final Map<String, TmEndpoint> jobs = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private TmSocket(Path path, ServerSocketChannel server, Logger log) {
    this.path = path;
    this.server = server;
    this.log = log;
  }

  /**
   * Binds {@code path} (a stale socket of an earlier mom process is replaced) in a directory only
   * the mom may write to, and starts accepting.
   */
  static TmSocket open(Path path, Logger log) throws IOException {
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
    TmSocket socket = new TmSocket(path, server, log);
    Thread acceptor = new Thread(socket::accept, "tm-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    return socket;
  }

  /** The socket's path, for the jobs' BERTH_TM_SOCKET. */
  Path path() {
    return path;
  }

  /**
   * Serves the task manager of job {@code jobId}: connections from the processes {@code admit}
   * accepts go to {@code handler} until the endpoint is closed.
   */
  TmEndpoint serve(
      String jobId, Predicate<PeerCredentials.Peer> admit, TmEndpoint.Handler handler) {
    TmEndpoint endpoint = new TmEndpoint(jobId, admit, handler, log, e -> jobs.remove(jobId, e));
    TmEndpoint earlier = jobs.put(jobId, endpoint);
    if (earlier != null) {
      earlier.close();
    }
    return endpoint;
  }

  /** Stops accepting and removes the socket; the jobs' endpoints close with their jobs. */
  void close() {
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
      } catch (IOException e) {
        if (!closed) {
          log.warn("task manager socket {} failed: {}", path, e.getMessage());
        }
        return;
      }
      route(channel);
    }
  }

  /** Hands the connection to the one job that admits its process, or refuses it. */
  private void route(SocketChannel channel) {
    PeerCredentials.Peer peer;
    try {
      peer = PeerCredentials.of(channel);
    } catch (IOException e) {
      refuse(channel, "cannot identify the connecting process: " + e.getMessage());
      return;
    }
    List<TmEndpoint> admitting = jobs.values().stream().filter(j -> j.admits(peer)).toList();
    if (admitting.size() == 1) {
      admitting.get(0).adopt(channel);
      return;
    }
    String who = "refused process " + peer.pid() + " (uid " + peer.uid() + "): ";
    refuse(
        channel,
        admitting.isEmpty()
            ? who + "it is not a process of a job this node runs"
            : who
                + "it is a process of more than one job ("
                + String.join(", ", admitting.stream().map(TmEndpoint::jobId).sorted().toList())
                + ")");
  }

  private void refuse(SocketChannel channel, String why) {
    log.warn("task manager: {}", why);
    TmEndpoint.reject(channel, why);
  }
}
