package dev.berth.security.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateAuthorityTest {
  private static final Duration YEAR = Duration.ofDays(365);
  private final Clock clock = Clock.systemUTC();

  @TempDir Path dir;

  @Test
  void issuesCredentialsThatNameTheirIdentityAndKeepTheirKeysPrivate() throws IOException {
    CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "test", YEAR, clock);
    Credential mom =
        ca.issue(
            new Identity(Role.MOM, "node07"),
            List.of("127.0.0.1", "node07.example"),
            YEAR,
            dir.resolve("mom"));

    assertEquals(new Identity(Role.MOM, "node07"), mom.identity());
    assertEquals("rw-------", mode(dir.resolve("ca/ca.key")));
    assertEquals("rw-------", mode(dir.resolve("mom/key.pem")));
    assertEquals("rwx------", mode(dir.resolve("mom")));
    assertEquals(
        mom.identity(), Credential.load(dir.resolve("mom"), clock).identity(), "loads again");
    assertTrue(
        mom.certificate().getSubjectX500Principal().getName().contains("OU=mom"),
        "the role is in the subject too, for Kafka's principal rules");
  }

  @Test
  void refusesAKeyOthersMayRead() throws IOException {
    CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "test", YEAR, clock);
    ca.issue(new Identity(Role.SERVER, "head"), List.of(), YEAR, dir.resolve("s"));
    Files.setPosixFilePermissions(
        dir.resolve("s/key.pem"), PosixFilePermissions.fromString("rw-r--r--"));

    IOException e = assertThrows(IOException.class, () -> Credential.load(dir.resolve("s"), clock));
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
  }

  @Test
  void refusesACertificateAnotherAuthorityIssued() throws IOException {
    CertificateAuthority ours = CertificateAuthority.create(dir.resolve("a"), "ours", YEAR, clock);
    CertificateAuthority theirs =
        CertificateAuthority.create(dir.resolve("b"), "theirs", YEAR, clock);
    theirs.issue(new Identity(Role.SERVER, "head"), List.of(), YEAR, dir.resolve("s"));
    Files.delete(dir.resolve("s/ca.pem"));
    PemFiles.writeCertificates(dir.resolve("s/ca.pem"), List.of(ours.certificate()));

    IOException e = assertThrows(IOException.class, () -> Credential.load(dir.resolve("s"), clock));
    assertTrue(e.getMessage().contains("not issued by this cluster"), e.getMessage());
  }

  @Test
  void refusesAnExpiredCertificate() throws IOException, NotTrustedException {
    Clock past = Clock.fixed(Instant.now().minus(Duration.ofDays(30)), ZoneOffset.UTC);
    CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "test", YEAR, past);
    ca.issue(new Identity(Role.MOM, "n1"), List.of(), Duration.ofDays(1), dir.resolve("m"));

    IOException e = assertThrows(IOException.class, () -> Credential.load(dir.resolve("m"), clock));
    assertTrue(e.getMessage().contains("not valid now"), e.getMessage());
  }

  @Test
  void aCaIsMadeOnlyOnce() throws IOException {
    CertificateAuthority.create(dir.resolve("ca"), "test", YEAR, clock);
    assertThrows(
        IOException.class,
        () -> CertificateAuthority.create(dir.resolve("ca"), "test", YEAR, clock));
  }

  @Test
  void namesMustBeHostNames() {
    assertThrows(IllegalArgumentException.class, () -> new Identity(Role.MOM, "a b"));
    assertThrows(IllegalArgumentException.class, () -> new Identity(Role.MOM, "../x"));
    assertThrows(IllegalArgumentException.class, () -> new Identity(Role.MOM, "x:y"));
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
