package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.server.journal.KafkaJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalSpecTest {
  @TempDir Path dir;

  @Test
  void aClientConfigIsAnAbsolutePath() {
    JournalSpec spec =
        JournalSpec.parse("kafka://k1:9092/berth-prod?replication=3&config=/etc/berth/kafka.conf");
    assertEquals(Optional.of(Path.of("/etc/berth/kafka.conf")), spec.clientConfig());
    assertEquals(3, spec.replication());
    assertEquals(Optional.empty(), JournalSpec.parse("kafka://k1:9092").clientConfig());
    IllegalArgumentException relative =
        assertThrows(
            IllegalArgumentException.class,
            () -> JournalSpec.parse("kafka://k1:9092?config=kafka.conf"));
    assertTrue(relative.getMessage().contains("absolute path"), relative.getMessage());
  }

  @Test
  void aServerReachesItsJournalWithItsCredential() throws IOException {
    Credential server =
        CertificateAuthority.create(
                dir.resolve("ca"), "test", Duration.ofDays(1), Clock.systemUTC())
            .issue(
                new Identity(Role.SERVER, "head1"),
                List.of(),
                Duration.ofDays(1),
                dir.resolve("s"));
    KafkaJournal.Settings s =
        JournalSpec.parse("kafka://k1:9092")
            .kafka(new BerthHome(dir), "head1", Optional.of(server));
    assertEquals("berth-journal-head1", s.topic());
    assertEquals("berth-writer-berth-journal-head1", s.transactionalId());
    assertFalse(s.brokers().plaintext());
    assertEquals("SSL", s.brokers().clientProperties().get("security.protocol"));
    assertEquals(KafkaJournal.WRITE_TIMEOUT, s.writeTimeout());
  }
}
