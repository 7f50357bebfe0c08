package dev.berth.mom.output;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Parser;
import dev.berth.mom.job.StarterStatus;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.TaskProcess;
import dev.berth.mom.os.UserInfo;
import dev.berth.mom.os.Users;
import dev.berth.proto.Job;
import dev.berth.proto.OutputChunk;
import dev.berth.proto.OutputDelivered;
import dev.berth.proto.OutputDelivery;
import dev.berth.proto.OutputGrant;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A submit host's port for job output, on its relay: mutual TLS that admits only moms of the
 * cluster's CA. A mom offers a stream of a job; the server says whether that mom is the job's
 * mother superior and the stream's path is on this host ({@link Grants}), and only then is it
 * written, by {@code cat} running as the job's owner through the starter, which opens the file with
 * the owner's permissions and without following a link. Root's output is not written here.
 *
 * <p>Bounded: deliveries in progress (each on a thread of its own, with deadlines for the handshake
 * and every read) and the size of a frame; a stream's length is not bounded, it goes to disk as it
 * comes.
 */
public final class OutputPort implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutputPort.class);

  static final int DELIVERIES = 16;
  static final int READ_MILLIS = 60_000;
  private static final int FRAME_BYTES = TlsCourier.CHUNK + 1024;

  /** Asks the active server whether the mom of {@code node} may deliver a job's stream here. */
  @FunctionalInterface
  public interface Grants {
    CompletionStage<OutputGrant> check(String jobId, String node, String stream);
  }

  private final SSLServerSocket server;
  private final Grants grants;
  private final Launcher launcher;
  private final Users users;
  private final Path statusDir;
  private final Semaphore slots = new Semaphore(DELIVERIES);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean running = true;

  /**
   * @param statusDir a root-only directory for the writing processes' status files
   */
  public OutputPort(
      InetSocketAddress bind,
      SSLContext tls,
      Grants grants,
      Launcher launcher,
      Users users,
      Path statusDir)
      throws IOException {
    this.grants = grants;
    this.launcher = launcher;
    this.users = users;
    this.statusDir = statusDir;
    server = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket();
    server.setNeedClientAuth(true);
    server.setEnabledProtocols(new String[] {"TLSv1.3"});
    server.setReuseAddress(true);
    server.bind(bind, 64);
    acceptor = new Thread(this::accept, "berth-output-port");
    acceptor.setDaemon(true);
    acceptor.start();
    log.info("moms deliver job output at {}", address());
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private void accept() {
    while (running) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        if (running) {
          // Out of file descriptors, most likely: a moment's pause instead of a busy loop.
          log.warn("accepting a mom failed: {}", e.toString());
          try {
            Thread.sleep(100);
          } catch (InterruptedException stop) {
            return;
          }
        }
        continue;
      }
      if (!slots.tryAcquire()) {
        log.warn(
            "refused an output delivery from {}: {} are in progress",
            socket.getRemoteSocketAddress(),
            DELIVERIES);
        closeQuietly(socket);
        continue;
      }
      open.add(socket);
      Thread t =
          new Thread(
              () -> serve((SSLSocket) socket), "berth-output-" + socket.getRemoteSocketAddress());
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(SSLSocket socket) {
    String node = "?";
    try {
      socket.setSoTimeout(READ_MILLIS);
      socket.startHandshake();
      Identity peer = Identity.of((X509Certificate) socket.getSession().getPeerCertificates()[0]);
      if (peer.role() != Role.MOM) {
        log.warn(
            "refused an output delivery from {}: it is {}, not a mom",
            socket.getRemoteSocketAddress(),
            peer);
        return;
      }
      node = peer.name();
      InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
      OutputDelivery delivery = read(in, OutputDelivery.parser());
      OutputDelivered answer = take(node, delivery, in);
      OutputStream out = socket.getOutputStream();
      answer.writeDelimitedTo(out);
      out.flush();
    } catch (IOException | IllegalArgumentException e) {
      if (running) {
        log.info(
            "an output delivery from {} ({}) failed: {}",
            socket.getRemoteSocketAddress(),
            node,
            e.toString());
      }
    } finally {
      open.remove(socket);
      closeQuietly(socket);
      slots.release();
    }
  }

  /** Checks the delivery with the server, then writes it; the answer says where, or why not. */
  private OutputDelivered take(String node, OutputDelivery delivery, InputStream in)
      throws IOException {
    OutputGrant grant;
    try {
      grant =
          grants
              .check(delivery.getJobId(), node, delivery.getStream())
              .toCompletableFuture()
              .get(READ_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return refused("interrupted");
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return refused("the server did not say whether it may: " + e);
    }
    if (!grant.getRefusal().isEmpty()) {
      log.warn(
          "refused output of job {} from node {}: {}",
          delivery.getJobId(),
          node,
          grant.getRefusal());
      return refused(grant.getRefusal());
    }
    Job job = grant.getJob();
    Optional<UserInfo> owner = users.user(job.getEuser());
    if (owner.isEmpty()) {
      return refused("user " + job.getEuser() + " does not exist on this host");
    }
    if (owner.get().uid() == 0) {
      return refused("output of root's jobs is not delivered to submit hosts");
    }
    UserInfo user = owner.get();
    Path target =
        OutputFiles.destination(
            job,
            delivery.getStream(),
            Map.of(
                "PBS_JOBID", job.getId(),
                "PBS_JOBNAME", job.getName(),
                "HOME", user.home(),
                "USER", user.name()),
            Files::isDirectory);
    String error = write(user, job, target, in);
    if (error != null) {
      return refused(error);
    }
    log.info(
        "wrote {} of job {} from node {} to {} as {}",
        delivery.getStream().equals("o") ? "stdout" : "stderr",
        job.getId(),
        node,
        target,
        user.name());
    return OutputDelivered.newBuilder().setPath(target.toString()).build();
  }

  /** Writes the chunks to {@code target} through a process of {@code user}; null, or why not. */
  private String write(UserInfo user, Job job, Path target, InputStream in) throws IOException {
    Path status = statusDir.resolve("write-" + UUID.randomUUID() + ".status");
    TaskProcess writer =
        launcher.startPiped(
            new StartSpec(
                user,
                user.gid(),
                Path.of("/"),
                null,
                target,
                null,
                true,
                job.getExtensionsOrDefault("umask", ""),
                List.of(),
                status,
                null,
                List.of("/bin/cat"),
                Map.of("PATH", "/usr/bin:/bin"),
                false,
                false,
                null));
    try (OutputStream to = writer.stdin();
        InputStream starterMessages = writer.stderr();
        InputStream unused = writer.stdout()) {
      boolean last = false;
      while (!last) {
        OutputChunk chunk = read(in, OutputChunk.parser());
        try {
          chunk.getData().writeTo(to);
        } catch (IOException e) {
          // the writer ended early (it could not open the file): its status says why
          drain(in, chunk);
          break;
        }
        last = chunk.getLast();
      }
    }
    try {
      writer.process().exited().get(READ_MILLIS, TimeUnit.MILLISECONDS);
      StarterStatus result = StarterStatus.parse(Files.readString(status).strip());
      if (result.kind() == StarterStatus.Kind.FAILED) {
        return "cannot write " + target + " as " + user.name() + ": " + result.message();
      }
      if (result.exitStatus() != 0) {
        return "writing "
            + target
            + " as "
            + user.name()
            + " failed (exit "
            + result.exitStatus()
            + ")";
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return "writing " + target + " did not finish: " + e;
    } finally {
      Files.deleteIfExists(status);
    }
  }

  /** Reads the rest of the stream after a failed write, so that the mom hears the answer. */
  private static void drain(InputStream in, OutputChunk chunk) throws IOException {
    while (!chunk.getLast()) {
      chunk = read(in, OutputChunk.parser());
    }
  }

  private static <T> T read(InputStream in, Parser<T> parser) throws IOException {
    int first = in.read();
    if (first < 0) {
      throw new EOFException("the mom hung up in the middle of a delivery");
    }
    int size = CodedInputStream.readRawVarint32(first, in);
    if (size < 0 || size > FRAME_BYTES) {
      throw new IOException("a frame of " + size + " bytes is over the limit of " + FRAME_BYTES);
    }
    byte[] bytes = in.readNBytes(size);
    if (bytes.length < size) {
      throw new EOFException("the mom hung up in the middle of a frame");
    }
    return parser.parseFrom(bytes);
  }

  private static OutputDelivered refused(String why) {
    return OutputDelivered.newBuilder().setError(why).build();
  }

  @Override
  public void close() {
    running = false;
    closeQuietly(server);
    for (Socket s : open) {
      closeQuietly(s);
    }
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // gone either way
    }
  }
}
