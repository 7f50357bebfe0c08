package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A peer that keeps hitting a limit gets one log line a while, not one per hit. */
class QuietLogTest {
  private final List<String> lines = new ArrayList<>();
  private long now;
  private final QuietLog quiet = new QuietLog(lines::add, Duration.ofSeconds(10), () -> now);

  private void at(long millis, String source, String kind, String line) {
    now = millis;
    quiet.say(source, kind, line);
  }

  @Test
  void repeatsAreCountedIntoOneLineWhenTheQuietEnds() {
    at(0, "user bob", "user_connections", "refused bob 1");
    at(1_000, "user bob", "user_connections", "refused bob 2");
    at(2_000, "user bob", "user_connections", "refused bob 3");
    at(3_000, "user alice", "user_connections", "refused alice");
    at(4_000, "user bob", "dropped", "dropped bob");
    assertEquals(List.of("refused bob 1", "refused alice", "dropped bob"), lines);
    now = 9_999;
    quiet.sweep();
    assertEquals(3, lines.size(), "still quiet");
    now = 10_000;
    quiet.sweep();
    assertEquals("user bob: user_connections: 2 more like the last in 10 s", lines.get(3));
    assertEquals(4, lines.size(), "nothing held back for alice");
    at(10_001, "user bob", "user_connections", "refused bob 4");
    assertEquals("refused bob 4", lines.get(4));
  }

  @Test
  void aLineAfterTheQuietWithoutASweepStillReportsTheHeldOnes() {
    at(0, "user bob", "unread", "one");
    at(1, "user bob", "unread", "two");
    at(20_000, "user bob", "unread", "three");
    assertEquals(List.of("one", "user bob: unread: 1 more like the last in 10 s", "three"), lines);
  }

  @Test
  void anotherSourcesLineEndsTheQuietPeriodsThatAreOver() {
    at(0, "10.0.0.9", "handshake", "slow 1");
    at(1, "10.0.0.9", "handshake", "slow 2");
    at(15_000, "10.0.0.7", "handshake", "slow 3");
    assertEquals(
        List.of("slow 1", "10.0.0.9: handshake: 1 more like the last in 10 s", "slow 3"), lines);
  }

  @Test
  void aFloodFromManySourcesIsRememberedAsOne() {
    for (int i = 0; i < QuietLog.MAX_SOURCES; i++) {
      at(0, "10.1." + i, "handshake", "from " + i);
    }
    at(1, "192.0.2.1", "handshake", "first newcomer");
    at(2, "192.0.2.2", "handshake", "second newcomer");
    at(3, "192.0.2.3", "handshake", "third newcomer");
    assertEquals(QuietLog.MAX_SOURCES + 1, lines.size());
    assertEquals("first newcomer", lines.get(lines.size() - 1));
    now = 10_001;
    quiet.sweep();
    assertEquals(
        QuietLog.OTHERS + ": handshake: 2 more like the last in 10 s", lines.get(lines.size() - 1));
  }
}
