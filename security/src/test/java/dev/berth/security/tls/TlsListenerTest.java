package dev.berth.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS listener's handshake is one deadline however slowly its bytes come, one source gets only
 * its share of the handshakes in progress, and a connection that completed its handshake has no
 * deadline at all. Every connection here comes from this host, one source.
 */
class TlsListenerTest {
  private static final Duration HANDSHAKE = Duration.ofSeconds(3);

  @TempDir static Path dir;
  static SSLContext serverTls;
  static SSLContext anyone;

  private final List<AutoCloseable> open = new ArrayList<>();
  private final ExecutorService readers = Executors.newCachedThreadPool();

  @BeforeAll
  static void credentials() throws Exception {
    Duration year = Duration.ofDays(365);
    CertificateAuthority ca =
        CertificateAuthority.create(dir.resolve("ca"), "c", year, Clock.systemUTC());
    Credential mom = ca.issue(new Identity(Role.MOM, "n1"), List.of(), year, dir.resolve("m"));
    serverTls = TlsContexts.of(mom);
    anyone = SSLContext.getInstance(TlsContexts.PROTOCOL);
    anyone.init(null, new TrustManager[] {new TrustingEveryone()}, null);
  }

  @AfterEach
  void close() throws Exception {
    readers.shutdownNow();
    Collections.reverse(open);
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** A port that takes anyone (no client certificate) and echoes one byte. */
  private InetSocketAddress listener(int handshakes, int perSource) throws IOException {
    TlsListener l =
        new TlsListener(
            "test",
            new InetSocketAddress("127.0.0.1", 0),
            serverTls,
            null,
            new TlsListener.Limits(handshakes, perSource, HANDSHAKE, 64),
            c -> {
              InputStream in = c.socket().getInputStream();
              OutputStream out = c.socket().getOutputStream();
              out.write(in.read());
              out.flush();
            });
    open.add(l);
    return l.address();
  }

  private Socket plain(InetSocketAddress at) throws IOException {
    Socket s = new Socket(at.getAddress(), at.getPort());
    open.add(s);
    return s;
  }

  /** Reads until the port ends {@code s}; how long it lasted since {@code since}. */
  private static Duration awaitCut(Socket s, long since) {
    try {
      s.setSoTimeout(60_000);
      while (s.getInputStream().read() >= 0) {
        // an alert
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("not cut within 60 s");
    } catch (IOException reset) {
      // cut
    }
    return Duration.ofNanos(System.nanoTime() - since);
  }

  @Test
  void aHandshakeNotDoneInTimeIsCutHoweverSlowlyItsBytesCome() throws Exception {
    Socket slow = plain(listener(16, 4));
    long start = System.nanoTime();
    OutputStream out = slow.getOutputStream();
    out.write(new byte[] {0x16, 0x03, 0x01, 0x40, 0x00}); // a handshake record of 16 KiB
    slow.setSoTimeout(200);
    Duration took = null;
    while (took == null) {
      try {
        out.write(1); // a byte every 200 ms, never the whole record
        out.flush();
        if (slow.getInputStream().read() < 0) {
          took = Duration.ofNanos(System.nanoTime() - start);
        }
      } catch (SocketTimeoutException quiet) {
        // the next byte
      } catch (IOException cut) {
        took = Duration.ofNanos(System.nanoTime() - start);
      }
    }
    assertTrue(took.compareTo(HANDSHAKE) >= 0, "cut early: " + took);
    assertTrue(took.compareTo(HANDSHAKE.plusSeconds(20)) < 0, "cut late: " + took);
  }

  @Test
  void beyondItsShareOfHandshakesASourcesConnectionsAreClosedAtOnce() throws Exception {
    InetSocketAddress port = listener(16, 3);
    long start = System.nanoTime();
    List<CompletableFuture<Duration>> cuts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Socket s = plain(port);
      cuts.add(CompletableFuture.supplyAsync(() -> awaitCut(s, start), readers));
    }
    List<Duration> lifetimes = new ArrayList<>();
    for (CompletableFuture<Duration> c : cuts) {
      lifetimes.add(c.get());
    }
    Collections.sort(lifetimes);
    // two closed as they came, before any of the three kept ones, which lasted until the deadline
    assertTrue(lifetimes.get(1).compareTo(lifetimes.get(2)) < 0, lifetimes.toString());
    assertTrue(lifetimes.get(1).compareTo(HANDSHAKE) < 0, lifetimes.toString());
    assertTrue(lifetimes.get(2).compareTo(HANDSHAKE) >= 0, lifetimes.toString());
  }

  @Test
  void aConnectionThatCompletedItsHandshakeHasNoDeadline() throws Exception {
    InetSocketAddress port = listener(16, 4);
    try (SSLSocket s = (SSLSocket) anyone.getSocketFactory().createSocket()) {
      s.connect(port, 10_000);
      s.setSoTimeout(60_000);
      s.startHandshake();
      Thread.sleep(HANDSHAKE.plusSeconds(1).toMillis()); // idle past the handshake's deadline
      s.getOutputStream().write(42);
      s.getOutputStream().flush();
      assertEquals(42, s.getInputStream().read());
    }
  }

  private static final class TrustingEveryone implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String type) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String type) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
