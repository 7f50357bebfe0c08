package dev.berth.server.journal;

import static dev.berth.server.testing.Events.alloc;
import static dev.berth.server.testing.Events.array;
import static dev.berth.server.testing.Events.dispatched;
import static dev.berth.server.testing.Events.exited;
import static dev.berth.server.testing.Events.job;
import static dev.berth.server.testing.Events.nodeCreated;
import static dev.berth.server.testing.Events.started;
import static dev.berth.server.testing.Events.submitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.proto.Event;
import dev.berth.proto.JobRestored;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksIterator;

/** The RocksDB journal on a real RocksDB in a temporary directory. */
class RocksJournalTest {
  @TempDir Path dir;

  /** Numbered, timed events: a node, then jobs through their lifecycle. */
  static List<Event> events(long first, long last) {
    List<Event> result = new ArrayList<>();
    for (long seq = first; seq <= last; seq++) {
      Event.Builder body =
          switch ((int) (seq % 4)) {
            case 1 -> submitted(job(seq));
            case 2 -> dispatched(seq - 1 + ".srv", alloc("n1", 0));
            case 3 -> started(seq - 2 + ".srv", seq, seq);
            default -> exited(seq - 3 + ".srv", 0, seq);
          };
      result.add(body.setSeq(seq).setTime(seq * 1000).setActor("test").build());
    }
    return result;
  }

  static Event numbered(long seq, Event.Builder body) {
    return body.setSeq(seq).setTime(seq * 1000).setActor("test").build();
  }

  static void write(Journal j, List<Event> events) throws Exception {
    j.append(events).get(10, TimeUnit.SECONDS);
  }

  static List<Event> replay(Journal j, long afterSeq) {
    List<Event> out = new ArrayList<>();
    j.replay(afterSeq, out::add);
    return out;
  }

  static JournalException failure(CompletableFuture<Void> f) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
    return assertInstanceOf(JournalException.class, e.getCause());
  }

  @Test
  void appendedBatchesReplayInOrder() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertEquals(0, j.lastSeq());
      assertEquals(List.of(), replay(j, 0));
      write(j, events(1, 1));
      write(j, events(2, 4));
      write(j, events(5, 6));
      assertEquals(6, j.lastSeq());
      assertEquals(events(1, 6), replay(j, 0));
      assertEquals(events(4, 6), replay(j, 3));
      assertEquals(List.of(), replay(j, 6));
      write(j, List.of());
      assertEquals(6, j.lastSeq());
    }
  }

  @Test
  void lastSeqAndEventsSurviveAReopen() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      write(j, events(1, 9));
    }
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertEquals(9, j.lastSeq());
      assertEquals(events(1, 9), replay(j, 0));
      write(j, events(10, 10));
      assertEquals(10, j.lastSeq());
    }
  }

  @Test
  void anAppendThatBreaksTheSequenceFailsAndWritesNothing() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      write(j, events(1, 2));
      JournalException e = failure(j.append(events(4, 5)));
      assertEquals("event 4 appended after event 2: sequence broken", e.getMessage());
      failure(j.append(events(2, 2)));
      assertEquals(2, j.lastSeq());
      write(j, events(3, 3));
      assertEquals(events(1, 3), replay(j, 0));
    }
  }

  @Test
  void aMissingRecordIsAGapOnReplay() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      write(j, events(1, 5));
    }
    RawRocks.with(dir, (db, cf) -> db.delete(cf.get("events"), RocksJournal.key(3)));
    try (RocksJournal j = RocksJournal.open(dir)) {
      JournalException e = assertThrows(JournalException.class, () -> replay(j, 0));
      assertEquals("the journal has a gap: event 2 is followed by event 4", e.getMessage());
      assertThrows(JournalException.class, () -> replay(j, 2));
      assertEquals(events(4, 5), replay(j, 3));
    }
  }

  @Test
  void aDamagedRecordFailsItsChecksumAndIsNamed() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      write(j, events(1, 5));
    }
    RawRocks.with(
        dir,
        (db, cf) -> {
          byte[] value = db.get(cf.get("events"), RocksJournal.key(2));
          value[value.length - 3] ^= 0x20; // one bit flipped in the body
          db.put(cf.get("events"), RocksJournal.key(2), value);
        });
    try (RocksJournal j = RocksJournal.open(dir)) {
      List<Event> seen = new ArrayList<>();
      JournalException e = assertThrows(JournalException.class, () -> j.replay(0, seen::add));
      assertEquals("journal record 2 fails its checksum: the journal is damaged", e.getMessage());
      assertEquals(events(1, 1), seen, "events before the damage were delivered");
      assertThrows(JournalException.class, () -> history(j, "1.srv"));
    }
  }

  @Test
  void aRecordUnderTheWrongKeyOrTooShortIsRefused() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      write(j, events(1, 3));
    }
    RawRocks.with(
        dir,
        (db, cf) -> {
          byte[] seven = events(7, 7).get(0).toByteArray();
          db.put(cf.get("events"), RocksJournal.key(2), RawRocks.record(2, seven));
          db.put(cf.get("events"), RocksJournal.key(3), new byte[] {1, 2});
        });
    try (RocksJournal j = RocksJournal.open(dir)) {
      JournalException wrong = assertThrows(JournalException.class, () -> replay(j, 1));
      assertEquals("journal record 2 holds event 7", wrong.getMessage());
      JournalException shortOne = assertThrows(JournalException.class, () -> replay(j, 2));
      assertEquals("journal record 3 is truncated (2 bytes)", shortOne.getMessage());
    }
  }

  @Test
  void snapshotsAreSavedLoadedAndReplaced() throws Exception {
    List<Event> small =
        List.of(
            nodeCreated("n1", 4).build(),
            Event.newBuilder()
                .setJobRestored(JobRestored.newBuilder().setJob(job(1)).setScript(script(1, 10)))
                .build());
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertEquals(Optional.empty(), j.latestSnapshot());
      j.saveSnapshot(new Journal.Snapshot(10, small));
      assertSnapshot(10, small, j);
      j.saveSnapshot(new Journal.Snapshot(20, List.of()));
      assertSnapshot(20, List.of(), j);
      j.saveSnapshot(new Journal.Snapshot(30, small));
    }
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertSnapshot(30, small, j);
    }
    assertEquals(List.of(30L), snapshotSeqs(), "older snapshots are dropped");
  }

  @Test
  void aLargeSnapshotIsStoredInSeveralChunks() throws Exception {
    List<Event> image = new ArrayList<>();
    for (int i = 1; i <= 3000; i++) {
      image.add(
          Event.newBuilder()
              .setJobRestored(JobRestored.newBuilder().setJob(job(i)).setScript(script(i, 2048)))
              .build());
    }
    long bytes = image.stream().mapToLong(Event::getSerializedSize).sum();
    assertTrue(bytes > 4L << 20, "the image is over one 4 MiB chunk: " + bytes);
    try (RocksJournal j = RocksJournal.open(dir)) {
      j.saveSnapshot(new Journal.Snapshot(500, image));
    }
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertSnapshot(500, image, j);
    }
    int[] chunks = new int[1];
    RawRocks.with(
        dir,
        (db, cf) -> {
          byte[] latest = db.get(cf.get("snapshots"), "latest".getBytes(StandardCharsets.UTF_8));
          chunks[0] = ByteBuffer.wrap(latest, 8, 4).getInt();
        });
    assertTrue(chunks[0] >= 2, "chunks: " + chunks[0]);
    assertEquals(List.of(500L), snapshotSeqs());
  }

  @Test
  void aSnapshotWithAMissingChunkIsReported() throws Exception {
    try (RocksJournal j = RocksJournal.open(dir)) {
      j.saveSnapshot(new Journal.Snapshot(8, List.of(nodeCreated("n1", 1).build())));
    }
    RawRocks.with(
        dir,
        (db, cf) ->
            db.delete(cf.get("snapshots"), ByteBuffer.allocate(12).putLong(8).putInt(0).array()));
    try (RocksJournal j = RocksJournal.open(dir)) {
      JournalException e = assertThrows(JournalException.class, j::latestSnapshot);
      assertEquals("snapshot at event 8 lacks chunk 0", e.getMessage());
    }
  }

  private static void assertSnapshot(long seq, List<Event> image, Journal j) {
    Journal.Snapshot loaded = j.latestSnapshot().orElseThrow();
    assertEquals(seq, loaded.seq());
    List<Event> read = new ArrayList<>();
    loaded.image().forEach(read::add);
    assertEquals(image, read);
  }

  private static ByteString script(int job, int size) {
    byte[] b = new byte[size];
    Arrays.fill(b, (byte) ('a' + job % 26));
    return ByteString.copyFrom(b);
  }

  /** The sequence numbers of every snapshot chunk stored. */
  private List<Long> snapshotSeqs() throws Exception {
    List<Long> seqs = new ArrayList<>();
    RawRocks.with(
        dir,
        (db, cf) -> {
          try (RocksIterator it = db.newIterator(cf.get("snapshots"))) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
              if (it.key().length == 12) {
                long seq = ByteBuffer.wrap(it.key()).getLong();
                if (!seqs.contains(seq)) {
                  seqs.add(seq);
                }
              }
            }
          }
        });
    return seqs;
  }

  @Test
  void historyListsAJobsEventsAndASubjobsArraySubmission() throws Exception {
    List<Event> journal =
        List.of(
            numbered(1, nodeCreated("n1", 4)),
            numbered(2, submitted(job(1))),
            numbered(3, submitted(job(12))),
            numbered(4, submitted(array(2, "1-2", 2))),
            numbered(5, dispatched("1.srv", alloc("n1", 0))),
            numbered(6, dispatched("2[1].srv", alloc("n1", 1))),
            numbered(7, dispatched("12.srv", alloc("n1", 2))),
            numbered(8, exited("2[1].srv", 0, 8)),
            numbered(9, exited("1.srv", 0, 9)));
    try (RocksJournal j = RocksJournal.open(dir)) {
      write(j, journal);
      assertEquals(seqs(history(j, "1.srv")), List.of(2L, 5L, 9L));
      assertEquals(seqs(history(j, "12.srv")), List.of(3L, 7L));
      assertEquals(seqs(history(j, "2[1].srv")), List.of(4L, 6L, 8L));
      assertEquals(seqs(history(j, "2[2].srv")), List.of(4L));
      assertEquals(seqs(history(j, "2[].srv")), List.of(4L));
      assertEquals(List.of(), history(j, "3.srv"));
      assertEquals(journal.get(1), history(j, "1.srv").get(0));
    }
  }

  private static List<Event> history(Journal j, String jobId) {
    List<Event> events = new ArrayList<>();
    j.history(jobId, events::add);
    return events;
  }

  private static List<Long> seqs(List<Event> events) {
    return events.stream().map(Event::getSeq).toList();
  }

  @Test
  void concurrentAppendsCompleteInOrder() throws Exception {
    int threads = 8;
    int each = 60;
    try (RocksJournal j = RocksJournal.open(dir)) {
      Object lock = new Object();
      long[] next = {1};
      List<Long> completed = Collections.synchronizedList(new ArrayList<>());
      List<CompletableFuture<Void>> futures = Collections.synchronizedList(new ArrayList<>());
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread w =
            new Thread(
                () -> {
                  for (int i = 0; i < each; i++) {
                    synchronized (lock) {
                      long seq = next[0]++;
                      CompletableFuture<Void> f = j.append(events(seq, seq));
                      // runs in the thread that completes f, right when it completes
                      futures.add(f.thenRun(() -> completed.add(seq)));
                    }
                  }
                });
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      long total = (long) threads * each;
      List<Long> expected = LongStream.rangeClosed(1, total).boxed().toList();
      assertEquals(expected, completed, "futures complete in the order of their events");
      assertEquals(total, j.lastSeq());
      assertEquals(events(1, total), replay(j, 0));
    }
  }

  @Test
  void anAppendAfterCloseFails() {
    RocksJournal j = RocksJournal.open(dir);
    j.close();
    JournalException e = failure(j.append(events(1, 1)));
    assertEquals("the journal is closed", e.getMessage());
    j.close(); // closing twice is harmless
  }

  @Test
  void closeWaitsForAppendsAlreadyAccepted() throws Exception {
    CompletableFuture<Void> last;
    try (RocksJournal j = RocksJournal.open(dir)) {
      for (long seq = 1; seq < 200; seq++) {
        j.append(events(seq, seq));
      }
      last = j.append(events(200, 200));
    }
    assertTrue(last.isDone() && !last.isCompletedExceptionally());
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertEquals(200, j.lastSeq());
    }
  }

  @Test
  void everyAppendRacingACloseIsAnsweredByTheTimeCloseReturns() throws Exception {
    for (int round = 0; round < 20; round++) {
      Path d = dir.resolve("round" + round);
      RocksJournal j = RocksJournal.open(d);
      List<CompletableFuture<Void>> futures = Collections.synchronizedList(new ArrayList<>());
      Thread appender =
          new Thread(
              () -> {
                for (long seq = 1; seq <= 2000; seq++) {
                  CompletableFuture<Void> f = j.append(events(seq, seq));
                  futures.add(f);
                  if (f.isCompletedExceptionally()) {
                    return; // closed
                  }
                }
              });
      appender.start();
      while (futures.size() < 5 * round) {
        Thread.onSpinWait();
      }
      j.close();
      int answeredAtClose;
      synchronized (futures) {
        answeredAtClose = futures.size();
        for (int i = 0; i < answeredAtClose; i++) {
          assertTrue(futures.get(i).isDone(), "round " + round + ": append " + (i + 1));
        }
      }
      appender.join();
    }
  }

  @Test
  void openingAMissingDirectoryCreatesIt() {
    Path nested = dir.resolve("a/b/journal");
    try (RocksJournal j = RocksJournal.open(nested)) {
      assertEquals(nested, j.directory());
      assertEquals(0, j.lastSeq());
    }
  }

  @Test
  void aDirectoryThatIsNotAJournalIsRefusedWithTheAdminsWayOut() throws Exception {
    java.nio.file.Files.writeString(dir.resolve("CURRENT"), "garbage\n");
    JournalException e = assertThrows(JournalException.class, () -> RocksJournal.open(dir));
    assertTrue(e.getMessage().startsWith("cannot open the journal in " + dir), e.getMessage());
    assertFalse(e.getMessage().isBlank());
  }
}
