package dev.berth.mom.output;

import com.google.protobuf.Parser;
import dev.berth.core.Budget;
import dev.berth.core.Frames;
import dev.berth.core.Sizes;
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
import dev.berth.security.Role;
import dev.berth.security.tls.TlsListener;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
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
 * <p>Bounded: handshakes in progress in all and per source address (each with one deadline),
 * deliveries in progress (each on a thread of its own, with a deadline for every read) and the size
 * of a frame; a stream's length is not bounded, it goes to disk as it comes.
 */
public final class OutputPort implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutputPort.class);

  static final int DELIVERIES = 16;

  /** A mom delivers each stream on a connection of its own: a job's end may bring several. */
  static final int HANDSHAKES_PER_SOURCE = 8;

  static final Duration HANDSHAKE = Duration.ofSeconds(10);
  static final int READ_MILLIS = 60_000;
  private static final int FRAME_BYTES = TlsCourier.CHUNK + 1024;

  /** The port's budget: its deliveries, which include their handshakes, a thread each. */
  public static Budget budget() {
    return new Budget(
        "output port (moms delivering job output)",
        DELIVERIES
            + " deliveries (each "
            + Sizes.readable(TlsListener.CONNECTION_BYTES)
            + "), "
            + HANDSHAKES_PER_SOURCE
            + " handshakes a source, "
            + HANDSHAKE.toSeconds()
            + " s each",
        (long) DELIVERIES * TlsListener.CONNECTION_BYTES,
        DELIVERIES);
  }

  /** Asks the active server whether the mom of {@code node} may deliver a job's stream here. */
  @FunctionalInterface
  public interface Grants {
    CompletionStage<OutputGrant> check(String jobId, String node, String stream);
  }

  private final TlsListener listener;
  private final Grants grants;
  private final Launcher launcher;
  private final Users users;
  private final Path statusDir;

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
    listener =
        new TlsListener(
            "output delivery",
            bind,
            tls,
            Role.MOM,
            new TlsListener.Limits(DELIVERIES, HANDSHAKES_PER_SOURCE, HANDSHAKE, DELIVERIES),
            this::serve);
    log.info("moms deliver job output at {}", address());
  }

  public InetSocketAddress address() {
    return listener.address();
  }

  /** One delivery: the stream offered, checked, written, answered. */
  private void serve(TlsListener.Connection c) throws IOException {
    SSLSocket socket = c.socket();
    socket.setSoTimeout(READ_MILLIS);
    InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    OutputDelivered answer = take(c, read(in, OutputDelivery.parser()), in);
    Frames.write(socket.getOutputStream(), answer);
    socket.close(); // told the mom: close the TLS session properly
  }

  /** Checks the delivery with the server, then writes it; the answer says where, or why not. */
  private OutputDelivered take(TlsListener.Connection c, OutputDelivery delivery, InputStream in)
      throws IOException {
    String node = c.peer().name();
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
      c.refused(
          "output grant",
          "refused output of job "
              + delivery.getJobId()
              + " from node "
              + node
              + ": "
              + grant.getRefusal());
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
            StartSpec.catTo(
                user, user.gid(), target, job.getExtensionsOrDefault("umask", ""), false, status));
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

  /** The next frame of a delivery, which must not end before its last chunk. */
  private static <T> T read(InputStream in, Parser<T> parser) throws IOException {
    T frame = Frames.read(in, parser, FRAME_BYTES);
    if (frame == null) {
      throw new EOFException("the mom hung up in the middle of a delivery");
    }
    return frame;
  }

  private static OutputDelivered refused(String why) {
    return OutputDelivered.newBuilder().setError(why).build();
  }

  @Override
  public void close() {
    listener.close();
  }
}
