package dev.berth.mom.output;

import com.google.protobuf.ByteString;
import dev.berth.core.Frames;
import dev.berth.mom.job.StarterStatus;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.TaskProcess;
import dev.berth.mom.os.UserInfo;
import dev.berth.proto.OutputChunk;
import dev.berth.proto.OutputDelivered;
import dev.berth.proto.OutputDelivery;
import dev.berth.security.Role;
import dev.berth.security.tls.TlsSockets;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * Delivers spooled output to the relay of the host a path names, over mutual TLS with the mom's
 * credential: the relay's certificate must name that very host as a submit host, so an address that
 * leads elsewhere gets nothing. The spool file is read by {@code cat} running as the job's owner,
 * so a link the owner put in the spool shows only what the owner may read anyway.
 */
public final class TlsCourier implements OutputCourier {
  static final int CHUNK = 1 << 20;
  private static final int CONNECT_MILLIS = 5_000;
  private static final int REPLY_MILLIS = 120_000;

  private final SSLContext tls;
  private final int port;
  private final Launcher launcher;
  private final Path statusDir;

  /**
   * @param port the relays' output port ({@code berth relay --output-port})
   * @param statusDir a root-only directory for the reading processes' status files
   */
  public TlsCourier(SSLContext tls, int port, Launcher launcher, Path statusDir) {
    this.tls = tls;
    this.port = port;
    this.launcher = launcher;
    this.statusDir = statusDir;
  }

  @Override
  public String deliver(
      String host, String jobId, String stream, Path file, UserInfo owner, int gid)
      throws IOException {
    try (SSLSocket socket =
        TlsSockets.connect(
            tls,
            InetSocketAddress.createUnresolved(host, port),
            CONNECT_MILLIS,
            REPLY_MILLIS,
            relay -> relay.role() == Role.SUBMIT && relay.name().equalsIgnoreCase(host),
            "submit host " + host)) {
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), CHUNK + 64);
      OutputDelivery.newBuilder().setJobId(jobId).setStream(stream).build().writeDelimitedTo(out);
      send(file, owner, gid, out);
      out.flush();
      OutputDelivered answer =
          Frames.read(socket.getInputStream(), OutputDelivered.parser(), 64 << 10);
      if (answer == null) {
        throw new IOException("the relay of " + host + " hung up without answering");
      }
      if (!answer.getError().isEmpty()) {
        throw new IOException("the relay of " + host + " refused it: " + answer.getError());
      }
      return answer.getPath();
    }
  }

  /** The file's bytes in chunks, read by a process of its owner; fails if that process does. */
  private void send(Path file, UserInfo owner, int gid, OutputStream out) throws IOException {
    Path status = statusDir.resolve("read-" + UUID.randomUUID() + ".status");
    TaskProcess reader = launcher.startPiped(StartSpec.catFrom(owner, gid, file, status));
    try (InputStream starterMessages = reader.stderr()) {
      reader.stdin().close();
      byte[] buffer = new byte[CHUNK];
      InputStream in = reader.stdout();
      int n;
      while ((n = in.readNBytes(buffer, 0, CHUNK)) > 0) {
        OutputChunk.newBuilder()
            .setData(ByteString.copyFrom(buffer, 0, n))
            .build()
            .writeDelimitedTo(out);
      }
      reader.process().exited().get(60, TimeUnit.SECONDS);
      StarterStatus result = StarterStatus.parse(Files.readString(status).strip());
      if (result.kind() == StarterStatus.Kind.FAILED || result.exitStatus() != 0) {
        throw new IOException("cannot read " + file + " as its owner: " + result.message());
      }
      OutputChunk.newBuilder().setLast(true).build().writeDelimitedTo(out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading " + file, e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
    } finally {
      Files.deleteIfExists(status);
    }
  }
}
