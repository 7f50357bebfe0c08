package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.BerthClient;
import dev.berth.proto.Attribute;
import dev.berth.proto.Event;
import dev.berth.proto.JobHeld;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.server.BerthServer;
import dev.berth.server.journal.JournalException;
import dev.berth.server.journal.KafkaJournal;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.journal.TopicReader;
import dev.berth.server.journal.kafka.Brokers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The journal on a real KRaft broker (started in this JVM from the Kafka jars, secured as {@code
 * berth kafka start} secures it): what one server commits, a second one finds when it opens the
 * journal, and the first is fenced from then on; what an administrator sees when the brokers are
 * away, refuse the server or stop answering in the middle of a write; and that nobody but a server
 * may use the journal.
 */
@Tag("integration")
class KafkaJournalIT {
  /** The write timeout of these tests (30 s in service). */
  private static final Duration BOUND = Duration.ofSeconds(5);

  @RegisterExtension static final TestBroker broker = TestBroker.secured("berth-kafka-it-");

  private static KafkaJournal open(String topic, String local) throws Exception {
    return KafkaJournal.open(broker.journal(topic, local, BOUND));
  }

  private static List<Event> events(long from, long to) {
    return LongStream.rangeClosed(from, to)
        .mapToObj(
            seq ->
                Event.newBuilder()
                    .setSeq(seq)
                    .setTime(seq)
                    .setActor("test")
                    .setJobHeld(JobHeld.newBuilder().setJobId(seq + ".srv"))
                    .build())
        .toList();
  }

  private static List<Event> replay(KafkaJournal journal) {
    List<Event> all = new ArrayList<>();
    journal.replay(0, all::add);
    return all;
  }

  /** Opening the journal with {@code brokers} fails; returns the one line it fails with. */
  private static String openFails(Brokers brokers, String topic) {
    JournalException e =
        assertThrows(
            JournalException.class,
            () ->
                KafkaJournal.open(
                    new KafkaJournal.Settings(
                        brokers,
                        topic,
                        "berth-writer-" + topic,
                        1,
                        1,
                        broker.dir().resolve(topic),
                        BOUND)));
    System.out.println("opening the journal: " + e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    return e.getMessage();
  }

  @Test
  void aSecondServerFindsEverythingTheFirstCommittedAndFencesIt() throws Exception {
    KafkaJournal first = open("berth-fencing", "first");
    first.append(events(1, 3)).join();
    first.append(events(4, 10)).join();
    assertEquals(10, first.lastSeq());
    assertEquals(events(1, 10), replay(first));

    try (KafkaJournal second = open("berth-fencing", "second")) {
      assertEquals(10, second.lastSeq(), "caught up from the topic");
      assertEquals(events(1, 10), replay(second));
      List<Event> history = new ArrayList<>();
      second.history("7.srv", history::add);
      assertEquals(List.of(events(7, 7).get(0)), history);

      CompletionException fenced =
          assertThrows(CompletionException.class, () -> first.append(events(11, 11)).join());
      assertTrue(fenced.getCause() instanceof JournalException, fenced.toString());
      assertTrue(fenced.getCause().getMessage().contains("fenced"), fenced.getMessage());
      assertTrue(first.fenced());

      second.append(events(11, 12)).join();
      assertFalse(second.fenced());
    }
    first.close();

    try (KafkaJournal back = open("berth-fencing", "first")) {
      assertEquals(events(1, 12), replay(back), "the zombie's write never shows");
    }
  }

  @Test
  void aBrokerThatIsNotThereIsOneClearLine() throws Exception {
    String message =
        openFails(
            Brokers.of(
                "127.0.0.1:1",
                Optional.of(broker.credential(Role.SERVER, "head1")),
                Optional.empty()),
            "berth-none");
    assertTrue(message.startsWith("no Kafka broker answers at 127.0.0.1:1"), message);
  }

  @Test
  void aCertificateOfAnotherAuthorityIsOneClearLine() throws Exception {
    var stranger =
        CertificateAuthority.create(
                broker.dir().resolve("other-ca"), "other", Duration.ofDays(1), Clock.systemUTC())
            .issue(
                new Identity(Role.SERVER, "head1"),
                List.of("127.0.0.1"),
                Duration.ofDays(1),
                broker.dir().resolve("other-server"));
    String message =
        openFails(
            Brokers.of(broker.bootstrapServers(), Optional.of(stranger), Optional.empty()),
            "berth-stranger");
    assertTrue(message.contains("the TLS handshake failed"), message);
    assertTrue(message.contains(broker.bootstrapServers()), message);
  }

  @Test
  void aServerWithoutCredentialsDoesNotTalkPlaintextToATlsBroker() {
    String message =
        openFails(
            Brokers.of(broker.bootstrapServers(), Optional.empty(), Optional.empty()),
            "berth-plain");
    assertTrue(message.contains("does not answer a plaintext request"), message);
  }

  @Test
  void aTopicTheAclsDoNotCoverIsOneClearLine() throws Exception {
    String message = openFails(broker.brokers(), "not-berths");
    assertTrue(message.contains("do not let this server use the topic"), message);
  }

  @Test
  void aWriteThatCannotCommitFailsWithinItsBoundAndForGood() throws Exception {
    KafkaJournal journal = open("berth-stuck", "stuck");
    try {
      journal.append(events(1, 1)).join();
      broker.stop();
      long start = System.nanoTime();
      CompletionException e =
          assertThrows(CompletionException.class, () -> journal.append(events(2, 2)).join());
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.println("a write to a stopped broker failed after " + took + ": " + e.getCause());
      assertTrue(took.compareTo(BOUND.plusSeconds(2)) < 0, "took " + took);

      // failed for good: the next write fails without waiting for the broker again (a second is
      // far below the bound, and leaves room for the neighbours this class runs beside)
      long later = System.nanoTime();
      assertThrows(CompletionException.class, () -> journal.append(events(2, 2)).join());
      assertTrue(System.nanoTime() - later < TimeUnit.SECONDS.toNanos(1), "failed at once");

      long closing = System.nanoTime();
      journal.close();
      assertTrue(
          System.nanoTime() - closing < TimeUnit.SECONDS.toNanos(2),
          "a failed journal closes fast");
    } finally {
      broker.start();
    }
  }

  /**
   * A server (in this JVM) whose journal write cannot commit answers with an error and stops within
   * the bound; closing it then (what its SIGTERM hook does) does not wait for Kafka.
   */
  @Test
  void aServerWhoseJournalCannotCommitStops() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "kafka-journal-it");
    KafkaJournal journal = open("berth-server-stops", "server-stops");
    Path socket = broker.dir().resolve("server.sock");
    BerthServer server =
        BerthServer.start(
            system,
            journal,
            BerthServer.Config.defaults(socket, "srv", "localhost"),
            new InsecureSeal(new Identity(Role.SERVER, "localhost"), Clock.systemUTC()));
    try (BerthClient client = BerthClient.connect(socket)) {
      Response ok = client.call(createNode("n1"));
      assertFalse(ok.hasError(), ok.toString());

      broker.stop();
      long start = System.nanoTime();
      Response failed = client.call(createNode("n2"));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.println("a command with the broker stopped: " + took + ", " + failed);
      assertTrue(failed.hasError(), failed.toString());
      assertTrue(failed.getError().getMessage().contains("journal failed"), failed.toString());
      assertTrue(took.compareTo(BOUND.plusSeconds(2)) < 0, "took " + took);
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);

      long closing = System.nanoTime();
      server.close();
      journal.close();
      assertTrue(
          System.nanoTime() - closing < TimeUnit.SECONDS.toNanos(2), "stops without waiting");
    } finally {
      system.terminate();
      broker.start();
    }
  }

  /**
   * While a server writes its journal, an unprivileged local user (a process of berth-bob) with no
   * TLS, with TLS but no certificate, and with a certificate of a CA of its own that names itself a
   * server, and a compromised compute node (root, holding its mom's credential) each try to take
   * the writers' transactional id, read the topic, append to it (and the local user to read the
   * server's key). All fail; the server keeps writing, and the topic holds its events only.
   */
  @Test
  void aLocalUserOrAComputeNodeCannotFenceReadOrWriteTheJournal() throws Exception {
    TestUsers.ensure(TestUsers.BOB);
    String topic = "berth-guarded";
    try (KafkaJournal journal = open(topic, "guarded");
        AttackerSandbox sandbox = AttackerSandbox.create()) {
      journal.append(events(1, 3)).join();
      Path server = broker.credential(Role.SERVER, "head1").directory();
      Path anonymous = sandbox.share(server.resolve(Credential.TRUST), "anonymous").getParent();
      Path bob = sandbox.path("bob");
      CertificateAuthority.create(bob.resolve("ca"), "bob", Duration.ofDays(1), Clock.systemUTC())
          .issue(
              new Identity(Role.SERVER, "head1"),
              List.of("127.0.0.1"),
              Duration.ofDays(1),
              bob.resolve("server"));
      // The cluster's CA certificate is no secret: bob trusts the broker, the broker not him.
      Files.copy(
          server.resolve(Credential.TRUST),
          bob.resolve("server").resolve(Credential.TRUST),
          StandardCopyOption.REPLACE_EXISTING);
      sandbox.handOver(bob, TestUsers.BOB);
      Path mom = broker.credential(Role.MOM, "node1").directory();
      String key = server.resolve(Credential.KEY).toString();

      record Attack(String who, String user, String key, String how, Path held) {}
      for (Attack a :
          List.of(
              new Attack("local user, plaintext", TestUsers.BOB, key, "plaintext", null),
              new Attack(
                  "local user, TLS without a certificate",
                  TestUsers.BOB,
                  key,
                  "anonymous",
                  anonymous),
              new Attack(
                  "local user, certificate of its own CA",
                  TestUsers.BOB,
                  key,
                  "certificate",
                  bob.resolve("server")),
              new Attack(
                  "compute node root, its mom's credential", null, "-", "certificate", mom))) {
        List<String> argv =
            new ArrayList<>(
                List.of(
                    broker.bootstrapServers(), topic, "berth-writer-" + topic, a.key(), a.how()));
        if (a.held() != null) {
          argv.add(a.held().toString());
        }
        TestCluster.Result r = sandbox.run(a.user(), argv.toArray(String[]::new));
        System.out.println("== " + a.who() + ":\n" + r.out());
        assertEquals(0, r.exit(), a.who() + " succeeded: " + r);
        assertEquals(
            a.key().equals("-") ? 3 : 4,
            r.out().lines().filter(l -> l.contains(": refused")).count(),
            r.toString());
      }

      journal.append(events(4, 5)).join();
      assertFalse(journal.fenced(), "the server still writes");
      KafkaJournal.Settings check = broker.journal(topic, "guarded-check", BOUND);
      try (RocksJournal copy = KafkaJournal.openLocal(check);
          TopicReader reader = new TopicReader(check, copy)) {
        reader.readToEnd(BOUND);
        List<Event> read = new ArrayList<>();
        copy.replay(0, read::add);
        assertEquals(events(1, 5), read, "the topic holds the server's events only");
      }
    }
  }

  /** A command the server must journal: qmgr -c "create node NAME np=1". */
  private static Request.Builder createNode(String name) {
    return Request.newBuilder()
        .setManage(
            Manage.newBuilder()
                .setCommand(Manage.Command.CREATE)
                .setObjectType(Manage.ObjectType.NODE)
                .addNames(name)
                .addAttributes(Attribute.newBuilder().setName("np").setValue("1")));
  }
}
