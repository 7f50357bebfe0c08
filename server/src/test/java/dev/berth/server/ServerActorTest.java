package dev.berth.server;

import static dev.berth.server.testing.Events.alloc;
import static dev.berth.server.testing.Events.dispatched;
import static dev.berth.server.testing.Events.job;
import static dev.berth.server.testing.Events.nodeCreated;
import static dev.berth.server.testing.Events.queueCreated;
import static dev.berth.server.testing.Events.serverSet;
import static dev.berth.server.testing.Events.submitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobState;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationCreated;
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
import dev.berth.server.mail.Outbox;
import dev.berth.server.metrics.ServerMetrics;
import dev.berth.server.query.NodeTelemetry;
import dev.berth.server.state.ClusterState;
import dev.berth.server.testing.ForwardingJournal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command pipeline with a real journal, watched through the batches it appends. */
class ServerActorTest {
  private static final ActorTestKit KIT = ActorTestKit.create();

  @TempDir Path dir;

  @AfterAll
  static void down() {
    KIT.shutdownTestKit();
  }

  @Test
  void aFreedCpuGoesToTheNextJobInTheJournalWriteThatEndsTheLastOne() throws Exception {
    try (Recording journal = new Recording(RocksJournal.open(dir.resolve("journal")))) {
      ClusterState state =
          ForwardingJournal.seed(
              journal,
              "test",
              nodeCreated("n1", 1),
              queueCreated(
                  "batch", "queue_type", "Execution", "enabled", "True", "started", "True"),
              serverSet(ServerAttributeNames.DEFAULT_QUEUE, "batch"),
              serverSet(ServerAttributeNames.SCHEDULING, "True"),
              submitted(job(1)),
              submitted(job(2)),
              dispatched("1.srv", alloc("n1", 0)));
      AtomicReference<ClusterState> published = new AtomicReference<>(state);
      ActorRef<ServerActor.Message> server =
          KIT.spawn(
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
                  published,
                  new AtomicReference<>(),
                  Clock.systemUTC(),
                  new NodeTelemetry(),
                  Runnable::run,
                  new CompletableFuture<>(),
                  new InsecureSeal(new Identity(Role.SERVER, "head"), Clock.systemUTC()),
                  AfterCommit.mail(Outbox.NONE),
                  ServerMetrics.unscraped()));

      CompletableFuture<Response> acknowledged = new CompletableFuture<>();
      ServerInbound obit =
          ServerInbound.newBuilder()
              .setObit(JobObitReport.newBuilder().setJobId("1.srv").setNode("n1").setExitStatus(0))
              .build();
      server.tell(
          new ServerActor.Execute(
              new Decider.FromNode(obit), Caller.system("node:n1", "n1"), acknowledged));
      acknowledged.get(10, TimeUnit.SECONDS);

      List<Event> ending =
          journal.appends().stream()
              .filter(batch -> batch.stream().anyMatch(Event::hasJobExited))
              .findFirst()
              .orElseThrow();
      assertTrue(
          ending.stream()
              .anyMatch(
                  e -> e.hasJobDispatched() && e.getJobDispatched().getJobId().equals("2.srv")),
          "2.srv is dispatched in the batch that records 1.srv's end: " + ending);
      assertEquals(
          JobState.RUNNING, published.get().job("2.srv").orElseThrow().getState(), "committed");
      assertEquals(
          List.of(0),
          published.get().job("2.srv").orElseThrow().getExecNodes(0).getCpusList(),
          "on the CPU 1.srv freed");
    }
  }

  @Test
  void aReservationWindowClosesAtItsEndNotAtTheNextTick() throws Exception {
    try (Recording journal = new Recording(RocksJournal.open(dir.resolve("journal")))) {
      long now = System.currentTimeMillis() / 1000;
      ClusterState state =
          ForwardingJournal.seed(
              journal,
              "test",
              nodeCreated("n1", 1),
              queueCreated("R1", "queue_type", "Execution", "enabled", "True", "started", "True"),
              Event.newBuilder()
                  .setReservationCreated(
                      ReservationCreated.newBuilder()
                          .setReservation(
                              Reservation.newBuilder()
                                  .setId("R1.srv")
                                  .setNumber(1)
                                  .setOwner("root@head")
                                  .setQueue("R1")
                                  .setStart(now - 60)
                                  .setEnd(now + 1)
                                  .addNodes("n1")
                                  .setState(Reservation.State.RUNNING))));
      KIT.spawn(
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
              AfterCommit.mail(Outbox.NONE),
              ServerMetrics.unscraped()));

      Event ended = journal.awaitEvent(Event::hasReservationEnded, Duration.ofSeconds(30));
      assertEquals("its window ended", ended.getReservationEnded().getReason());
      assertTrue(
          ended.getTime() >= (now + 1) * 1000,
          "not before its end, and not an hour later at the tick: " + ended);
    }
  }

  /** A journal that remembers each batch appended to it, in order. */
  private static final class Recording extends ForwardingJournal {
    private final List<List<Event>> appends = Collections.synchronizedList(new ArrayList<>());

    Recording(Journal journal) {
      super(journal);
    }

    List<List<Event>> appends() {
      synchronized (appends) {
        return List.copyOf(appends);
      }
    }

    /** The first event appended that matches, once it is. */
    Event awaitEvent(Predicate<Event> wanted, Duration limit) throws InterruptedException {
      long deadline = System.nanoTime() + limit.toNanos();
      synchronized (appends) {
        while (true) {
          for (List<Event> batch : appends) {
            for (Event e : batch) {
              if (wanted.test(e)) {
                return e;
              }
            }
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new AssertionError("no such event within " + limit + ": " + appends);
          }
          TimeUnit.NANOSECONDS.timedWait(appends, left);
        }
      }
    }

    @Override
    public CompletableFuture<Void> append(List<Event> events) {
      synchronized (appends) {
        appends.add(List.copyOf(events));
        appends.notifyAll();
      }
      return journal.append(events);
    }
  }
}
