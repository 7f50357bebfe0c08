package dev.berth.server.journal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.server.journal.JournalException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokersTest {
  @TempDir static Path dir;
  static Credential server;

  @BeforeAll
  static void credential() throws IOException {
    server =
        CertificateAuthority.create(
                dir.resolve("ca"), "test", Duration.ofDays(1), Clock.systemUTC())
            .issue(
                new Identity(Role.SERVER, "head1"),
                List.of(),
                Duration.ofDays(1),
                dir.resolve("server"));
  }

  private static Path config(String name, String mode, String... lines) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, List.of(lines));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  @Test
  void aServerConnectsWithMutualTlsFromItsCredential() {
    Brokers brokers = Brokers.of("k1:9092,k2:9092", Optional.of(server), Optional.empty());
    Properties p = brokers.clientProperties();
    assertEquals("k1:9092,k2:9092", p.get("bootstrap.servers"));
    assertEquals("SSL", p.get("security.protocol"));
    assertEquals(CredentialTls.class.getName(), p.get("ssl.engine.factory.class"));
    assertEquals(server.directory().toString(), p.get(CredentialTls.CREDENTIAL));
    assertFalse(brokers.plaintext());
    assertTrue(brokers.toString().contains("mutual TLS as server head1"), brokers.toString());
  }

  @Test
  void aClusterWithoutCredentialsConnectsInPlaintext() {
    Brokers brokers = Brokers.of("k1:9092", Optional.empty(), Optional.empty());
    assertTrue(brokers.plaintext());
    assertEquals("PLAINTEXT", brokers.clientProperties().get("security.protocol"));
  }

  @Test
  void aScramLoginKeepsTheCredentialsTls() throws IOException {
    Path file =
        config(
            "scram.properties",
            "rw-------",
            "security.protocol=SASL_SSL",
            "sasl.mechanism=SCRAM-SHA-512",
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"berth-server\" password=\"secret\";");
    Properties p = Brokers.of("k1:9092", Optional.of(server), Optional.of(file)).clientProperties();
    assertEquals("SASL_SSL", p.get("security.protocol"));
    assertEquals("SCRAM-SHA-512", p.get("sasl.mechanism"));
    assertEquals(
        server.directory().toString(),
        p.get(CredentialTls.CREDENTIAL),
        "TLS still from the credential");
  }

  @Test
  void aSitesOwnTrustStoreReplacesTheCredentialsTls() throws IOException {
    Path file =
        config(
            "pki.properties",
            "rw-r--r--",
            "ssl.truststore.type=PEM",
            "ssl.truststore.location=/etc/pki/site-ca.pem");
    Properties p = Brokers.of("k1:9092", Optional.of(server), Optional.of(file)).clientProperties();
    assertEquals("SSL", p.get("security.protocol"));
    assertNull(p.get("ssl.engine.factory.class"));
    assertNull(p.get(CredentialTls.CREDENTIAL));
    assertEquals("/etc/pki/site-ca.pem", p.get("ssl.truststore.location"));
  }

  @Test
  void aPasswordOthersMayReadIsRefused() throws IOException {
    Path file = config("open.properties", "rw-r--r--", "ssl.keystore.password=secret");
    JournalException e =
        assertThrows(
            JournalException.class,
            () -> Brokers.of("k1:9092", Optional.of(server), Optional.of(file)));
    assertTrue(e.getMessage().contains("chmod 600 " + file), e.getMessage());
  }

  @Test
  void onlyConnectionSettingsAreTaken() throws IOException {
    Path file = config("acks.properties", "rw-------", "acks=1");
    JournalException e =
        assertThrows(
            JournalException.class,
            () -> Brokers.of("k1:9092", Optional.of(server), Optional.of(file)));
    assertTrue(e.getMessage().contains("acks is not a connection setting"), e.getMessage());
  }

  @Test
  void aClusterWithCredentialsReachesItsJournalOverTlsOnly() throws IOException {
    Path file = config("plain.properties", "rw-------", "security.protocol=SASL_PLAINTEXT");
    JournalException e =
        assertThrows(
            JournalException.class,
            () -> Brokers.of("k1:9092", Optional.of(server), Optional.of(file)));
    assertTrue(e.getMessage().contains("over TLS only"), e.getMessage());
  }
}
