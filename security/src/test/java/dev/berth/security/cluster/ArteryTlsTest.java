package dev.berth.security.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.QuietLog;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.tls.TlsContexts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Handshakes between two SSLEngines in memory, as Artery drives them. */
class ArteryTlsTest {
  private static final Duration YEAR = Duration.ofDays(365);
  private static final Clock CLOCK = Clock.systemUTC();

  @TempDir static Path dir;
  static Credential server;
  static Credential mom;
  static Credential broker;
  static Credential stranger;

  @BeforeAll
  static void credentials() throws IOException {
    CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "c", YEAR, CLOCK);
    server = ca.issue(new Identity(Role.SERVER, "head"), List.of(), YEAR, dir.resolve("s"));
    mom = ca.issue(new Identity(Role.MOM, "n1"), List.of(), YEAR, dir.resolve("m"));
    broker = ca.issue(new Identity(Role.BROKER, "k"), List.of(), YEAR, dir.resolve("b"));
    CertificateAuthority other = CertificateAuthority.create(dir.resolve("x"), "x", YEAR, CLOCK);
    stranger = other.issue(new Identity(Role.MOM, "n1"), List.of(), YEAR, dir.resolve("o"));
  }

  private static final QuietLog QUIET = new QuietLog(line -> {}, Duration.ofSeconds(1), () -> 0);

  /** Engines made outside Artery's TLS stage: no deadline to hold them to. */
  private static final Consumer<SSLEngine> UNWATCHED = engine -> {};

  private static ArteryTls tls(Credential c) throws Exception {
    return new ArteryTls(TlsContexts.of(c), Set.of(Role.SERVER, Role.MOM), UNWATCHED, QUIET);
  }

  @Test
  void membersOfOneClusterShakeHands() throws Exception {
    ArteryTls s = tls(server);
    ArteryTls m = tls(mom);
    SSLEngine accepting = s.createServerSSLEngine("127.0.0.1", 1);
    SSLEngine connecting = m.createClientSSLEngine("127.0.0.1", 1);
    handshake(connecting, accepting);
    assertTrue(s.verifyServerSession("127.0.0.1", accepting.getSession()).isEmpty());
    assertTrue(m.verifyClientSession("127.0.0.1", connecting.getSession()).isEmpty());
  }

  @Test
  void aCredentialOfAnotherAuthorityIsRefusedInTheHandshake() throws Exception {
    SSLEngine accepting = tls(server).createServerSSLEngine("127.0.0.1", 1);
    SSLEngine connecting = tls(stranger).createClientSSLEngine("127.0.0.1", 1);
    assertThrows(SSLException.class, () -> handshake(connecting, accepting));
  }

  @Test
  void aRoleThatMayNotJoinIsCutOffAfterTheHandshake() throws Exception {
    ArteryTls s = tls(server);
    SSLEngine accepting = s.createServerSSLEngine("127.0.0.1", 1);
    SSLEngine connecting = tls(broker).createClientSSLEngine("127.0.0.1", 1);
    handshake(connecting, accepting);
    var refused = s.verifyServerSession("127.0.0.1", accepting.getSession());
    assertTrue(refused.isDefined());
    assertTrue(refused.get().getMessage().contains("broker k"), refused.get().getMessage());
  }

  @Test
  void aMemberWithoutACertificateIsRefused() throws Exception {
    SSLEngine accepting = tls(server).createServerSSLEngine("127.0.0.1", 1);
    javax.net.ssl.SSLContext anonymous = javax.net.ssl.SSLContext.getInstance("TLSv1.3");
    anonymous.init(null, null, null);
    SSLEngine connecting = anonymous.createSSLEngine("127.0.0.1", 1);
    connecting.setUseClientMode(true);
    assertThrows(SSLException.class, () -> handshake(connecting, accepting));
  }

  /** Runs both engines against each other until the handshake ends or one fails. */
  private static void handshake(SSLEngine client, SSLEngine server) throws SSLException {
    ByteBuffer toServer = ByteBuffer.allocate(1 << 16);
    ByteBuffer toClient = ByteBuffer.allocate(1 << 16);
    ByteBuffer app = ByteBuffer.allocate(1 << 16);
    client.beginHandshake();
    server.beginHandshake();
    for (int round = 0; round < 100; round++) {
      step(client, toClient, toServer, app);
      step(server, toServer, toClient, app);
      if (done(client) && done(server)) {
        return;
      }
    }
    throw new AssertionError("the handshake did not finish");
  }

  private static boolean done(SSLEngine e) {
    var s = e.getHandshakeStatus();
    return s == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
        || s == SSLEngineResult.HandshakeStatus.FINISHED;
  }

  private static void step(SSLEngine e, ByteBuffer in, ByteBuffer out, ByteBuffer app)
      throws SSLException {
    while (true) {
      switch (e.getHandshakeStatus()) {
        case NEED_TASK -> {
          Runnable task;
          while ((task = e.getDelegatedTask()) != null) {
            task.run();
          }
        }
        case NEED_WRAP -> {
          e.wrap(ByteBuffer.allocate(0), out);
        }
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          in.flip();
          SSLEngineResult r = e.unwrap(in, app);
          in.compact();
          if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW
              || (r.bytesConsumed() == 0 && r.getHandshakeStatus() == e.getHandshakeStatus())) {
            return;
          }
        }
        default -> {
          return;
        }
      }
    }
  }

  @Test
  void aRevokedCredentialIsRefusedInTheHandshake() throws Exception {
    Path list = dir.resolve("revoked-" + System.nanoTime());
    dev.berth.security.pki.Revocations.add(list, mom.certificate(), "mom n1");
    Credential strict =
        Credential.load(
            dir.resolve("s"), dev.berth.security.pki.Revocations.in(list, CLOCK), CLOCK);
    SSLEngine accepting =
        new ArteryTls(TlsContexts.of(strict), Set.of(Role.SERVER, Role.MOM), UNWATCHED, QUIET)
            .createServerSSLEngine("127.0.0.1", 1);
    SSLEngine connecting = tls(mom).createClientSSLEngine("127.0.0.1", 1);
    assertThrows(SSLException.class, () -> handshake(connecting, accepting));
  }

  @Test
  void roleWordsRoundTrip() {
    for (Role r : Role.values()) {
      assertEquals(r, Role.ofWord(r.word()));
    }
  }
}
