package dev.berth.mom.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TaskOutput;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A task's output pieces: numbered, held to the window, acknowledged, sent again. */
class OutputWindowTest {
  private final OutputWindow window = new OutputWindow("1.test", 3, "n1");

  /** What a reader thread delivers: each piece's bytes, then an empty array for the end. */
  private final LinkedBlockingQueue<byte[]> read = new LinkedBlockingQueue<>();

  private void reads(int pieces) {
    window.read(
        new ByteArrayInputStream(new byte[pieces * OutputWindow.PIECE]),
        1,
        (stream, data) -> read.add(data == null ? new byte[0] : data));
  }

  private byte[] next() throws InterruptedException {
    return read.poll(5, TimeUnit.SECONDS);
  }

  @Test
  void piecesAreNumberedAndKeptUntilAcknowledged() {
    TaskOutput a = window.piece(1, new byte[] {'a'});
    TaskOutput b = window.piece(2, new byte[] {'b'});
    assertEquals(List.of(0L, 1L), List.of(a.getSeq(), b.getSeq()));
    assertEquals(List.of(3, 3), List.of(a.getTaskId(), b.getTaskId()));
    assertEquals(2, b.getStream());
    window.acknowledged(0);
    assertFalse(window.acknowledged());
    window.acknowledged(1);
    assertTrue(window.acknowledged());
    assertEquals(2, window.pieces());
  }

  @Test
  void aReaderStopsAtTheWindowUntilPiecesAreAcknowledged() throws InterruptedException {
    reads(OutputWindow.WINDOW + 2);
    for (int i = 0; i < OutputWindow.WINDOW; i++) {
      window.piece(1, next());
    }
    assertNull(read.poll(200, TimeUnit.MILLISECONDS), "the window is full");
    window.acknowledged(2); // three pieces: room for two more and the end
    assertEquals(OutputWindow.PIECE, next().length);
    assertEquals(OutputWindow.PIECE, next().length);
    assertEquals(0, next().length, "the end of the stream");
  }

  @Test
  void closingLetsAWaitingReaderReadToTheEnd() throws InterruptedException {
    reads(OutputWindow.WINDOW + 5);
    for (int i = 0; i < OutputWindow.WINDOW; i++) {
      window.piece(1, next());
    }
    window.close();
    for (int i = 0; i < 5; i++) {
      assertEquals(OutputWindow.PIECE, next().length);
    }
    assertEquals(0, next().length);
  }

  @Test
  void unacknowledgedPiecesAreDueAgainOnlyWhenNothingMovedForAResend() {
    Duration resend = Duration.ofSeconds(60);
    long now = System.currentTimeMillis();
    assertEquals(List.of(), window.due(now + 120_000, resend), "nothing to send");
    TaskOutput piece = window.piece(1, new byte[] {'x'});
    assertEquals(List.of(), window.due(now, resend));
    long later = System.currentTimeMillis() + resend.toMillis();
    assertEquals(List.of(piece), window.due(later, resend));
    assertEquals(List.of(), window.due(later, resend), "sent again just now");
    window.acknowledged(piece.getSeq());
    assertEquals(List.of(), window.due(later + 120_000, resend));
  }
}
