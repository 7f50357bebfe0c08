package dev.berth.it;

import dev.berth.daemon.KafkaBroker;
import dev.berth.mom.os.JobFiles;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.server.journal.KafkaJournal;
import dev.berth.server.journal.kafka.Brokers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A KRaft broker in the test JVM (from the Kafka jars) for one test class, with its data in a
 * scratch directory that also holds whatever else the tests put there; a test may stop it and start
 * it again (same port, same data). It is set up as {@code berth kafka start} sets one up: a cluster
 * CA of its own, a broker credential, TLS and ACLs; the tests issue servers and moms credentials
 * from the same CA.
 */
final class TestBroker implements BeforeAllCallback, AfterAllCallback {
  private static final Duration VALIDITY = Duration.ofDays(1);

  private final String prefix;
  private Path dir;
  private CertificateAuthority authority;
  private Optional<Credential> brokerCredential = Optional.empty();
  private KafkaBroker broker;

  private TestBroker(String prefix) {
    this.prefix = prefix;
  }

  /** A broker that admits only the servers of its cluster, over mutual TLS. */
  static TestBroker secured(String prefix) {
    return new TestBroker(prefix);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory(Path.of("/tmp"), prefix);
    authority =
        CertificateAuthority.create(dir.resolve("ca"), "test cluster", VALIDITY, Clock.systemUTC());
    brokerCredential = Optional.of(credential(Role.BROKER, "test-broker"));
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (broker != null) {
      stop();
    }
    JobFiles.removeTree(dir);
  }

  /** The CA of the broker's cluster, which its servers' and moms' homes get. */
  Path authority() {
    return dir.resolve("ca");
  }

  /** The scratch directory of the class's tests. */
  Path dir() {
    return dir;
  }

  /** Starts the broker (again: same port, same data) unless it runs. */
  void start() throws IOException {
    if (broker == null) {
      broker = KafkaBroker.start(dir.resolve("broker"), "127.0.0.1", 0, brokerCredential);
    }
  }

  void stop() {
    broker.close();
    broker = null;
  }

  String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /**
   * A credential of this broker's cluster (in {@code dir/credentials/ROLE-NAME}, issued once),
   * naming 127.0.0.1 and localhost as a broker's must.
   */
  Credential credential(Role role, String name) throws IOException {
    Path to = dir.resolve("credentials").resolve(role.word() + "-" + name);
    if (Files.exists(to.resolve(Credential.CERTIFICATE))) {
      return Credential.load(to, Clock.systemUTC());
    }
    return authority.issue(
        new Identity(role, name), List.of("127.0.0.1", "localhost"), VALIDITY, to);
  }

  /** How a server of this cluster reaches the broker: with its credential. */
  Brokers brokers() throws IOException {
    return Brokers.of(
        bootstrapServers(), Optional.of(credential(Role.SERVER, "head1")), Optional.empty());
  }

  /** A journal's settings for {@code topic} with its local copy in {@code dir/local}. */
  KafkaJournal.Settings journal(String topic, String local, Duration writeTimeout)
      throws IOException {
    return new KafkaJournal.Settings(
        brokers(), topic, "berth-writer-" + topic, 1, 1, dir.resolve(local), writeTimeout);
  }
}
