package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Event;
import dev.berth.proto.JobHeld;
import dev.berth.server.journal.JournalException;
import dev.berth.server.journal.KafkaJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The journal on a real KRaft broker (started in this JVM from the Kafka jars): what one server
 * commits, a second one finds when it opens the journal, and the first is fenced from then on.
 */
@Tag("integration")
class KafkaJournalIT {
  @RegisterExtension static final TestBroker broker = new TestBroker("berth-kafka-it-");

  private static KafkaJournal open(String topic, String local) {
    return KafkaJournal.open(
        new KafkaJournal.Settings(
            broker.bootstrapServers(), topic, "berth-" + topic, 1, 1, broker.dir().resolve(local)));
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

  @Test
  void aSecondServerFindsEverythingTheFirstCommittedAndFencesIt() {
    KafkaJournal first = open("fencing", "first");
    first.append(events(1, 3)).join();
    first.append(events(4, 10)).join();
    assertEquals(10, first.lastSeq());
    assertEquals(events(1, 10), replay(first));

    try (KafkaJournal second = open("fencing", "second")) {
      assertEquals(10, second.lastSeq(), "caught up from the topic");
      assertEquals(events(1, 10), replay(second));
      assertEquals(List.of(events(7, 7).get(0)), second.history("7.srv"));

      CompletionException fenced =
          assertThrows(CompletionException.class, () -> first.append(events(11, 11)).join());
      assertTrue(fenced.getCause() instanceof JournalException, fenced.toString());
      assertTrue(fenced.getCause().getMessage().contains("fenced"), fenced.getMessage());
      assertTrue(first.fenced());

      second.append(events(11, 12)).join();
      assertFalse(second.fenced());
    }
    first.close();

    try (KafkaJournal back = open("fencing", "first")) {
      assertEquals(events(1, 12), replay(back), "the zombie's write never shows");
    }
  }

  @Test
  void aBrokerThatIsNotThereIsAClearError() {
    JournalException e =
        assertThrows(
            JournalException.class,
            () ->
                KafkaJournal.open(
                    new KafkaJournal.Settings(
                        "127.0.0.1:1", "none", "berth-none", 1, 1, broker.dir().resolve("none"))));
    assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
  }
}
