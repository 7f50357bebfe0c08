package dev.berth.server;

import static dev.berth.server.testing.Events.alloc;
import static dev.berth.server.testing.Events.deleted;
import static dev.berth.server.testing.Events.dispatched;
import static dev.berth.server.testing.Events.exited;
import static dev.berth.server.testing.Events.job;
import static dev.berth.server.testing.Events.nodeCreated;
import static dev.berth.server.testing.Events.queueCreated;
import static dev.berth.server.testing.Events.serverSet;
import static dev.berth.server.testing.Events.started;
import static dev.berth.server.testing.Events.submitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Event;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerInbound;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.mail.Letter;
import dev.berth.server.mail.MailPoint;
import dev.berth.server.mail.Outbox;
import dev.berth.server.metrics.ServerMetrics;
import dev.berth.server.query.NodeTelemetry;
import dev.berth.server.state.ClusterState;
import dev.berth.server.testing.ForwardingJournal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Job mail is a side effect of a durable batch: the pipeline posts it once the journal has the
 * events; an obit a mom sends again for a job that has ended, and a journal replayed at a start,
 * mail nothing again.
 */
class ServerActorMailTest {
  private static final ActorTestKit KIT = ActorTestKit.create();

  @TempDir Path dir;

  @AfterAll
  static void down() {
    KIT.shutdownTestKit();
  }

  @Test
  void theEndMailIsPostedOnceTheEndIsDurableAndNotForAnObitSentAgain() throws Exception {
    try (Held journal = new Held(RocksJournal.open(dir.resolve("journal")))) {
      ClusterState state =
          ForwardingJournal.seed(
              journal,
              "node:n1",
              nodeCreated("n1", 1),
              queueCreated(
                  "batch", "queue_type", "Execution", "enabled", "True", "started", "True"),
              serverSet(ServerAttributeNames.DEFAULT_QUEUE, "batch"),
              serverSet(ServerAttributeNames.SCHEDULING, "False"),
              submitted(job(1).toBuilder().setMailPoints("e").build()),
              dispatched("1.srv", alloc("n1", 0)),
              started("1.srv", 77, 100));
      BlockingQueue<Letter> outbox = new LinkedBlockingQueue<>();
      ActorRef<ServerActor.Message> server = spawn(journal, state, outbox::add);

      journal.hold();
      CompletableFuture<Response> acknowledged = obit(server);
      List<Event> ending = journal.awaitHeld();
      assertEquals(1, ending.stream().filter(Event::hasJobExited).count(), ending.toString());
      assertNull(outbox.poll(), "nothing is mailed while the end is not durable");

      journal.release();
      acknowledged.get(10, TimeUnit.SECONDS);
      Letter letter = outbox.poll(10, TimeUnit.SECONDS);
      assertEquals(MailPoint.END, letter.point());
      assertEquals(
          """
          To: alice@login1
          Subject: PBS JOB 1.srv
          Precedence: bulk

          PBS Job Id: 1.srv
          Job Name:   STDIN
          Exec host:  n1/0
          Execution terminated
          Exit_status=0
          resources_used.cput=00:00:00
          resources_used.mem=0kb
          resources_used.vmem=0kb
          resources_used.walltime=00:00:00
          Error_Path: login1:/home/alice/STDIN.e1
          Output_Path: login1:/home/alice/STDIN.o1
          """,
          letter.message());

      // The mom did not get the acknowledgement and reports the end again: the job has ended,
      // so no event and no second mail (a batch's mail is posted before its replies go out).
      obit(server).get(10, TimeUnit.SECONDS);
      assertNull(outbox.poll(), "one mail per end: " + outbox);
    }
  }

  @Test
  void aRecoveredJournalMailsNothingAgain() throws Exception {
    try (Held journal = new Held(RocksJournal.open(dir.resolve("journal")))) {
      ForwardingJournal.seed(
          journal,
          "node:n1",
          nodeCreated("n1", 1),
          queueCreated("batch", "queue_type", "Execution", "enabled", "True", "started", "True"),
          serverSet(ServerAttributeNames.DEFAULT_QUEUE, "batch"),
          serverSet(ServerAttributeNames.SCHEDULING, "False"),
          submitted(job(1).toBuilder().setMailPoints("abe").build()),
          dispatched("1.srv", alloc("n1", 0)),
          started("1.srv", 77, 100),
          exited("1.srv", -11, 110, "job killed: walltime 3 exceeded limit 2 (00:00:02)"),
          submitted(job(2).toBuilder().setMailPoints("abe").build()),
          deleted("2.srv", "deleted by root@head").setActor("root@head"));
      ClusterState recovered = BerthServer.recover(journal).state();
      BlockingQueue<Letter> outbox = new LinkedBlockingQueue<>();
      ActorRef<ServerActor.Message> server = spawn(journal, recovered, outbox::add);

      // A batch of its own: a batch's mail is posted before its replies, so once this one is
      // answered, whatever the recovery would have mailed has been.
      CompletableFuture<Response> answered = new CompletableFuture<>();
      server.tell(
          new ServerActor.Execute(
              new Decider.ClientCommand(
                  Request.newBuilder()
                      .setManage(
                          Manage.newBuilder()
                              .setCommand(Manage.Command.SET)
                              .setObjectType(Manage.ObjectType.SERVER)
                              .addAttributes(
                                  Attribute.newBuilder().setName("comment").setValue("up")))
                      .build(),
                  ROOT),
              ROOT,
              answered));
      assertEquals(Response.BodyCase.ACK, answered.get(10, TimeUnit.SECONDS).getBodyCase());
      assertEquals(recovered.lastSeq() + 1, journal.lastSeq(), "the batch is in the journal");
      assertNull(outbox.poll(), "nothing from the journal is mailed again: " + outbox);
    }
  }

  private static final Caller ROOT = new Caller("root", "root", "head");

  private static CompletableFuture<Response> obit(ActorRef<ServerActor.Message> server) {
    CompletableFuture<Response> acknowledged = new CompletableFuture<>();
    ServerInbound obit =
        ServerInbound.newBuilder()
            .setObit(JobObitReport.newBuilder().setJobId("1.srv").setNode("n1").setExitStatus(0))
            .build();
    server.tell(
        new ServerActor.Execute(
            new Decider.FromNode(obit), Caller.system("node:n1", "n1"), acknowledged));
    return acknowledged;
  }

  private static ActorRef<ServerActor.Message> spawn(
      Journal journal, ClusterState state, Outbox outbox) {
    return KIT.spawn(
        ServerActor.create(
            new ServerActor.Settings(
                "srv",
                "head",
                1_000_000,
                Duration.ofHours(1),
                Duration.ofHours(1),
                1000,
                ClientLimits.defaults(1L << 30).jobBudget()),
            journal,
            new AtomicReference<>(state),
            new AtomicReference<>(),
            Clock.systemUTC(),
            new NodeTelemetry(),
            Runnable::run,
            new CompletableFuture<>(),
            new InsecureSeal(new Identity(Role.SERVER, "head"), Clock.systemUTC()),
            AfterCommit.mail(outbox),
            ServerMetrics.unscraped()));
  }

  /** A journal that, when told to, keeps the next batch from being durable until released. */
  private static final class Held extends ForwardingJournal {
    private final BlockingQueue<List<Event>> heldBatches = new LinkedBlockingQueue<>();
    private volatile boolean holding;
    private CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

    Held(Journal journal) {
      super(journal);
    }

    synchronized void hold() {
      holding = true;
      gate = new CompletableFuture<>();
    }

    synchronized void release() {
      holding = false;
      gate.complete(null);
    }

    List<Event> awaitHeld() throws InterruptedException {
      List<Event> batch = heldBatches.poll(10, TimeUnit.SECONDS);
      if (batch == null) {
        throw new AssertionError("no batch was appended");
      }
      return batch;
    }

    @Override
    public CompletableFuture<Void> append(List<Event> events) {
      CompletableFuture<Void> written = journal.append(events);
      if (!holding) {
        return written;
      }
      CompletableFuture<Void> opened;
      synchronized (this) {
        opened = gate;
      }
      heldBatches.add(List.copyOf(events));
      return written.thenCombine(opened, (a, b) -> null);
    }
  }
}
