package dev.berth.server.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Event;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Workload;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server's restart path end to end: a journal written in arbitrary batches, reopened, and
 * loaded from a snapshot plus the events after it, gives the state the live server had.
 */
class JournalReplayTest {
  @TempDir Path dir;

  private static ClusterState replay(Journal j, ClusterState from, long afterSeq) {
    AtomicReference<ClusterState> s = new AtomicReference<>(from);
    j.replay(afterSeq, e -> s.set(StateMachine.apply(s.get(), e)));
    return s.get();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11, 12, 13})
  void batchesAndSnapshotsRebuildTheLiveState(long seed) throws Exception {
    Workload w = new Workload(seed).runUntil(300);
    List<Event> events = w.driver.journal;
    Random random = new Random(seed);
    try (RocksJournal j = RocksJournal.open(dir)) {
      CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
      for (int from = 0; from < events.size(); ) {
        int to = Math.min(events.size(), from + 1 + random.nextInt(12));
        last = j.append(events.subList(from, to)); // not waited for: batches queue up
        from = to;
      }
      last.get(30, TimeUnit.SECONDS);
    }
    int k = 1 + random.nextInt(events.size() - 1);
    try (RocksJournal j = RocksJournal.open(dir)) {
      assertEquals(events.size(), j.lastSeq());
      assertEquals(w.driver.state, replay(j, ClusterState.EMPTY, 0), "full replay");
      ClusterState atK = ClusterState.EMPTY;
      for (Event e : events.subList(0, k)) {
        atK = StateMachine.apply(atK, e);
      }
      j.saveSnapshot(new Journal.Snapshot(k, Snapshots.image(atK)));
    }
    try (RocksJournal j = RocksJournal.open(dir)) {
      Journal.Snapshot snapshot = j.latestSnapshot().orElseThrow();
      assertEquals(k, snapshot.seq());
      ClusterState restored =
          StateMachine.restore(ClusterState.EMPTY, snapshot.image(), snapshot.seq());
      assertEquals(w.driver.state, replay(j, restored, snapshot.seq()), "snapshot at " + k);
    }
  }
}
