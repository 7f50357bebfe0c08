package dev.berth.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A client that keeps hitting a limit gets one log line a while, not one per hit. */
class ComplaintsTest {
  private final List<String> lines = new ArrayList<>();
  private final Complaints complaints = new Complaints(lines::add, 10_000);

  @Test
  void repeatsAreCountedIntoOneLineWhenTheQuietEnds() {
    complaints.about("bob", "user_connections", "refused bob 1", 0);
    complaints.about("bob", "user_connections", "refused bob 2", 1_000);
    complaints.about("bob", "user_connections", "refused bob 3", 2_000);
    complaints.about("alice", "user_connections", "refused alice", 3_000);
    complaints.about("bob", "dropped", "dropped bob", 4_000);
    assertEquals(List.of("refused bob 1", "refused alice", "dropped bob"), lines);
    complaints.sweep(9_999);
    assertEquals(3, lines.size(), "still quiet");
    complaints.sweep(10_000);
    assertEquals("user bob: user_connections: 2 more like the last in 10 s", lines.get(3));
    assertEquals(4, lines.size(), "nothing held back for alice");
    complaints.about("bob", "user_connections", "refused bob 4", 10_001);
    assertEquals("refused bob 4", lines.get(4));
  }

  @Test
  void aComplaintAfterTheQuietWithoutASweepStillReportsTheHeldOnes() {
    complaints.about("bob", "unread", "one", 0);
    complaints.about("bob", "unread", "two", 1);
    complaints.about("bob", "unread", "three", 20_000);
    assertEquals(List.of("one", "user bob: unread: 1 more like the last in 10 s", "three"), lines);
  }
}
