package dev.berth.mom.output;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import dev.berth.mom.job.StarterStatus;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.TaskProcess;
import dev.berth.mom.os.UserInfo;
import dev.berth.proto.OutputChunk;
import dev.berth.proto.OutputDelivered;
import dev.berth.proto.OutputDelivery;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
    try (SSLSocket socket = connect(host)) {
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), CHUNK + 64);
      OutputDelivery.newBuilder().setJobId(jobId).setStream(stream).build().writeDelimitedTo(out);
      send(file, owner, gid, out);
      out.flush();
      InputStream in = socket.getInputStream();
      int first = in.read();
      if (first < 0) {
        throw new IOException("the relay of " + host + " hung up without answering");
      }
      int size = CodedInputStream.readRawVarint32(first, in);
      if (size < 0 || size > 64 << 10) {
        throw new IOException("the relay of " + host + " sent an answer of " + size + " bytes");
      }
      OutputDelivered answer = OutputDelivered.parseFrom(in.readNBytes(size));
      if (!answer.getError().isEmpty()) {
        throw new IOException("the relay of " + host + " refused it: " + answer.getError());
      }
      return answer.getPath();
    }
  }

  private SSLSocket connect(String host) throws IOException {
    SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket();
    try {
      socket.setEnabledProtocols(new String[] {"TLSv1.3"});
      socket.connect(new InetSocketAddress(host, port), CONNECT_MILLIS);
      socket.setSoTimeout(REPLY_MILLIS);
      socket.startHandshake();
      Identity relay = Identity.of((X509Certificate) socket.getSession().getPeerCertificates()[0]);
      if (relay.role() != Role.SUBMIT
          || !relay.name().toLowerCase(Locale.ROOT).equals(host.toLowerCase(Locale.ROOT))) {
        throw new IOException(
            host
                + ":"
                + port
                + " answered with the credential of "
                + relay
                + ", not of submit host "
                + host);
      }
      return socket;
    } catch (IOException | IllegalArgumentException e) {
      socket.close();
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
  }

  /** The file's bytes in chunks, read by a process of its owner; fails if that process does. */
  private void send(Path file, UserInfo owner, int gid, OutputStream out) throws IOException {
    Path status = statusDir.resolve("read-" + UUID.randomUUID() + ".status");
    TaskProcess reader =
        launcher.startPiped(
            new StartSpec(
                owner,
                gid,
                Path.of("/"),
                null,
                null,
                Path.of("/dev/null"),
                false,
                null,
                List.of(),
                status,
                null,
                List.of("/bin/cat", "--", file.toString()),
                Map.of("PATH", "/usr/bin:/bin"),
                false,
                false,
                null));
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
