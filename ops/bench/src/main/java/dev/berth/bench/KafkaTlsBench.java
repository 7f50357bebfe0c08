package dev.berth.bench;

import dev.berth.daemon.KafkaBroker;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.server.BerthServer;
import dev.berth.server.journal.KafkaJournal;
import dev.berth.server.journal.kafka.Brokers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * What securing the Kafka journal costs: the same durable submissions through two servers, one
 * whose journal is on a plaintext broker and one on a broker secured as {@code berth kafka start}
 * secures it (mutual TLS with Ed25519 credentials on every listener, ACLs), rounds interleaved so
 * that both see the same machine. Brokers and servers run in this JVM (the server processes of
 * {@link KafkaBench} take their credential from the daemon's own options).
 */
final class KafkaTlsBench implements AutoCloseable {
  private static final int ROUNDS = 3;
  private static final Duration VALIDITY = Duration.ofDays(1);

  private final Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  KafkaTlsBench() throws IOException {
    this.dir = Files.createTempDirectory(Path.of("/tmp"), "berth-bench-kafka-tls-");
  }

  /** A server on the journal of {@code brokers}, in an actor system of its own. */
  private record Served(String name, Path socket) {}

  void run() throws Exception {
    CertificateAuthority ca =
        CertificateAuthority.create(dir.resolve("ca"), "bench", VALIDITY, Clock.systemUTC());
    Credential brokerCredential = issue(ca, Role.BROKER, "bench-broker");
    Credential serverCredential = issue(ca, Role.SERVER, "bench");
    KafkaBroker plain = broker("plain", Optional.empty());
    KafkaBroker secured = broker("tls", Optional.of(brokerCredential));
    List<Served> servers =
        List.of(
            serve(
                "plaintext",
                Brokers.of(plain.bootstrapServers(), Optional.empty(), Optional.empty())),
            serve(
                "mutual TLS",
                Brokers.of(
                    secured.bootstrapServers(), Optional.of(serverCredential), Optional.empty())));
    System.out.printf(
        "%nKafka journal, plaintext against mutual TLS + ACLs (brokers and servers in one JVM):%n");
    System.out.println("round  journal       clients     jobs/s   p50 ms   p99 ms");
    for (int round = 1; round <= ROUNDS; round++) {
      for (int clients : new int[] {1, 8, 64}) {
        for (Served s : servers) {
          Submissions.Result r = Submissions.run(s.socket(), clients, 2, 10);
          System.out.printf(
              "%5d  %-12s %8d %10.0f %8.2f %8.2f%n",
              round, s.name(), clients, r.perSecond(), r.p50(), r.p99());
        }
      }
    }
  }

  private Credential issue(CertificateAuthority ca, Role role, String name) throws IOException {
    return ca.issue(
        new Identity(role, name),
        List.of("127.0.0.1", "localhost"),
        VALIDITY,
        dir.resolve(role.word() + "-" + name));
  }

  private KafkaBroker broker(String name, Optional<Credential> credential) throws IOException {
    KafkaBroker broker = KafkaBroker.start(dir.resolve(name), "127.0.0.1", 0, credential);
    open.add(broker);
    return broker;
  }

  private Served serve(String name, Brokers brokers) throws Exception {
    String id = name.replace(' ', '-');
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "bench-" + id);
    open.add(system::terminate);
    KafkaJournal journal =
        KafkaJournal.open(
            new KafkaJournal.Settings(
                brokers,
                "berth-bench",
                "berth-writer-berth-bench",
                1,
                1,
                dir.resolve("server-" + id),
                KafkaJournal.WRITE_TIMEOUT));
    open.add(journal);
    Path socket = dir.resolve(id + ".sock");
    BerthServer server =
        BerthServer.start(
            system,
            journal,
            BerthServer.Config.defaults(socket, "bench", "bench"),
            new InsecureSeal(new Identity(Role.SERVER, "bench"), Clock.systemUTC()));
    open.add(server);
    BenchServer.acceptJobs(socket);
    return new Served(name, socket);
  }

  @Override
  public void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
