package dev.berth.server.journal;

import static dev.berth.server.journal.RocksJournalTest.events;
import static dev.berth.server.journal.RocksJournalTest.replay;
import static dev.berth.server.journal.RocksJournalTest.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash in the middle of a write leaves the write-ahead log with a torn last record. The copy of
 * a journal's directory taken while it is open is what a crash leaves on disk (the events are only
 * in the log, never flushed to table files); cutting bytes off its log tears the last record.
 */
class TruncatedLogTest {
  private static final int EVENTS = 30;

  @TempDir Path live;
  @TempDir Path crashed;

  /** Writes the events one batch each and copies the directory while the journal is open. */
  private void crashAfterWriting() throws Exception {
    try (RocksJournal j = RocksJournal.open(live)) {
      for (long seq = 1; seq <= EVENTS; seq++) {
        write(j, events(seq, seq));
      }
      try (Stream<Path> files = Files.list(live)) {
        for (Path f : files.toList()) {
          Files.copy(f, crashed.resolve(f.getFileName()));
        }
      }
    }
  }

  private Path log() throws IOException {
    try (Stream<Path> files = Files.list(crashed)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".log"))
          .max(Comparator.comparingLong(f -> f.toFile().length()))
          .orElseThrow(() -> new AssertionError("no write-ahead log in " + crashed));
    }
  }

  private void cut(Path file, int bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() - bytes);
    }
  }

  @Test
  void anIntactCopyOpensWithEveryEvent() throws Exception {
    crashAfterWriting();
    try (RocksJournal j = RocksJournal.open(crashed)) {
      assertEquals(EVENTS, j.lastSeq());
      assertEquals(events(1, EVENTS), replay(j, 0));
    }
  }

  @Test
  void aTornLogTailIsRefusedAndRecoverKeepsTheIntactPrefix() throws Exception {
    crashAfterWriting();
    Path log = log();
    assertTrue(log.toFile().length() > 100, "the events are in the log: " + log);
    cut(log, 9);

    JournalException refused =
        assertThrows(JournalException.class, () -> RocksJournal.open(crashed));
    assertTrue(
        refused.getMessage().contains("`berth journal recover`"),
        "tells the admin the way out: " + refused.getMessage());
    assertTrue(refused.getMessage().contains(crashed.toString()), refused.getMessage());

    try (RocksJournal j = RocksJournal.recover(crashed)) {
      assertEquals(EVENTS - 1, j.lastSeq(), "only the torn last batch is lost");
      assertEquals(events(1, EVENTS - 1), replay(j, 0));
    }
    try (RocksJournal j = RocksJournal.open(crashed)) {
      assertEquals(EVENTS - 1, j.lastSeq(), "after recovery the journal opens normally");
      write(j, events(EVENTS, EVENTS));
      assertEquals(events(1, EVENTS), replay(j, 0));
    }
  }

  @Test
  void recoverOfAnIntactJournalLosesNothing() throws Exception {
    crashAfterWriting();
    try (RocksJournal j = RocksJournal.recover(crashed)) {
      assertEquals(EVENTS, j.lastSeq());
      assertEquals(List.copyOf(events(1, EVENTS)), replay(j, 0));
    }
  }
}
