package dev.berth.server.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal written by the previous release (commit f3f8a63, before formats were marked): its
 * server ran five jobs of berth-alice (one done, one that exited 3, one held, one deleted, one
 * running when the server was killed), stopped once (writing a snapshot) and set the server's
 * comment. This release reads it all, and marks it as its own format.
 */
class PreviousReleaseJournalTest {
  private static final Path FIXTURE = Path.of("src/test/resources/previous-release/journal");

  @TempDir Path dir;

  @BeforeEach
  void copy() throws IOException {
    try (Stream<Path> files = Files.list(FIXTURE)) {
      for (Path f : files.toList()) {
        Files.copy(f, dir.resolve(f.getFileName()));
      }
    }
  }

  @Test
  void theJournalOfThePreviousReleaseReplaysToTheStateItsServerHad() throws Exception {
    RawRocks.with(dir, (db, families) -> assertNull(db.get("format".getBytes()), "unmarked"));
    try (RocksJournal journal = RocksJournal.open(dir)) {
      AtomicReference<ClusterState> state = new AtomicReference<>(ClusterState.EMPTY);
      journal.replay(0, e -> state.set(StateMachine.apply(state.get(), e)));
      ClusterState s = state.get();

      assertEquals(5, s.jobCount());
      assertJob(s, "1.vm", "hello", JobState.COMPLETED, 0);
      assertJob(s, "2.vm", "three", JobState.COMPLETED, 3);
      assertJob(s, "3.vm", "held", JobState.HELD, null);
      assertJob(s, "4.vm", "deleted", JobState.COMPLETED, null);
      assertJob(s, "5.vm", "sleeper", JobState.RUNNING, null);
      assertEquals("berth-alice@vm", s.job("5.vm").orElseThrow().getOwner());
      assertEquals("vm", s.job("5.vm").orElseThrow().getExecNodes(0).getNode());
      assertEquals("written by the previous release", s.serverAttribute("comment").orElseThrow());

      Journal.Snapshot snapshot = journal.latestSnapshot().orElseThrow();
      assertTrue(snapshot.seq() > 0 && snapshot.seq() < s.lastSeq(), "events after the snapshot");
      AtomicReference<ClusterState> fromSnapshot =
          new AtomicReference<>(
              StateMachine.restore(ClusterState.EMPTY, snapshot.image(), snapshot.seq()));
      journal.replay(
          snapshot.seq(), e -> fromSnapshot.set(StateMachine.apply(fromSnapshot.get(), e)));
      assertEquals(byId(s), byId(fromSnapshot.get()), "the snapshot and the events agree");
      assertEquals(RocksJournal.FORMAT_VERSION, journal.format());
    }
  }

  @Test
  void aJournalOfANewerFormatIsRefusedWithTheReason() throws Exception {
    RawRocks.with(
        dir,
        (db, families) ->
            db.put(
                "format".getBytes(StandardCharsets.UTF_8), "3".getBytes(StandardCharsets.UTF_8)));
    JournalException e = assertThrows(JournalException.class, () -> RocksJournal.open(dir));
    assertTrue(
        e.getMessage()
            .startsWith("the journal in " + dir + " is in format 3, which a newer Berth wrote"),
        e.getMessage());
    RawRocks.with(
        dir,
        (db, families) ->
            assertEquals("3", new String(db.get("format".getBytes(StandardCharsets.UTF_8)))));
  }

  private static java.util.Map<String, Job> byId(ClusterState s) {
    return s.jobs().stream().collect(java.util.stream.Collectors.toMap(Job::getId, j -> j));
  }

  private static void assertJob(
      ClusterState s, String id, String name, JobState state, Integer exitStatus) {
    Job job = s.job(id).orElseThrow(() -> new AssertionError("no job " + id));
    assertEquals(name, job.getName(), id);
    assertEquals(state, job.getState(), id);
    if (exitStatus != null) {
      assertEquals(exitStatus, job.getExitStatus(), id);
    }
  }
}
