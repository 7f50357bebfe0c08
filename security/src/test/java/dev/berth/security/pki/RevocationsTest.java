package dev.berth.security.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RevocationsTest {
  @TempDir Path dir;

  /** A clock the test moves. */
  static final class Moving extends Clock {
    final AtomicLong millis = new AtomicLong(System.currentTimeMillis());

    @Override
    public ZoneId getZone() {
      return ZoneId.of("UTC");
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }
  }

  @Test
  void aRevokedCertificateIsRefusedEvenAfterItWasTrusted() throws IOException, NotTrustedException {
    Moving clock = new Moving();
    CertificateAuthority ca =
        CertificateAuthority.create(dir.resolve("ca"), "t", Duration.ofDays(1), clock);
    Credential mom =
        ca.issue(new Identity(Role.MOM, "n7"), List.of(), Duration.ofDays(1), dir.resolve("m"));
    Path file = dir.resolve("revoked");
    TrustAnchors trust =
        new TrustAnchors(List.of(ca.certificate()), Revocations.in(file, clock), clock);
    byte[] der = encoded(mom);
    assertEquals(mom.identity(), trust.peer(der).identity(), "trusted, and remembered");

    Revocations.add(file, mom.certificate(), "mom n7");
    clock.millis.addAndGet(1500); // the list is read again at most once a second
    NotTrustedException e = assertThrows(NotTrustedException.class, () -> trust.peer(der));
    assertTrue(e.getMessage().contains("revoked"), e.getMessage());
    IOException own =
        assertThrows(
            IOException.class,
            () -> Credential.load(dir.resolve("m"), Revocations.in(file, clock), clock));
    assertTrue(own.getMessage().contains("revoked"), own.getMessage());
  }

  @Test
  void theListIsSerialsInHexWithComments() {
    assertEquals(
        Set.of(new BigInteger("1f", 16), new BigInteger("abcd", 16)),
        Revocations.parse("1f  # mom n1\n\n# a note\nAB:CD\nnot-a-serial\n"));
  }

  @Test
  void withoutAFileNothingIsRevoked() {
    Revocations none = Revocations.in(dir.resolve("absent"), Clock.systemUTC());
    assertFalse(none.revoked(BigInteger.ONE));
  }

  private static byte[] encoded(Credential c) {
    try {
      return c.certificate().getEncoded();
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new AssertionError(e);
    }
  }
}
