package dev.berth.server.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Event;
import dev.berth.proto.JobState;
import dev.berth.server.testing.Workload;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The journal is the truth: replaying it rebuilds the live state, and a snapshot taken anywhere
 * plus the events after it rebuilds the same state, for journals made by driving the decider with a
 * realistic mix of commands.
 */
class ReplayTest {
  private static final int EVENTS = 400;

  private static List<ClusterState> replayEach(List<Event> journal) {
    List<ClusterState> states = new ArrayList<>(journal.size() + 1);
    ClusterState s = ClusterState.EMPTY;
    states.add(s);
    for (Event e : journal) {
      s = StateMachine.apply(s, e);
      states.add(s);
    }
    return states;
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 43, 2024})
  void replayFromEmptyRebuildsTheLiveState(long seed) {
    Workload w = new Workload(seed).runUntil(EVENTS);
    List<Event> journal = w.driver.journal;
    assertVariedJournal(w);

    List<ClusterState> replayed = replayEach(journal);
    StateDiff.assertSame(w.driver.state, replayed.get(journal.size()), "seed " + seed);
    for (int k = 0; k < w.states.size(); k++) {
      if (w.states.get(k) != null) {
        StateDiff.assertSame(w.states.get(k), replayed.get(k), "live state after event " + k);
      }
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 7, 99})
  void snapshotAtAnyEventPlusTheTailGivesTheSameState(long seed) {
    Workload w = new Workload(seed).runUntil(EVENTS);
    List<Event> journal = w.driver.journal;
    List<ClusterState> replayed = replayEach(journal);
    ClusterState end = w.driver.state;
    for (int k = 0; k <= journal.size(); k++) {
      ClusterState restored =
          StateMachine.restore(ClusterState.EMPTY, Snapshots.image(replayed.get(k)), k);
      StateDiff.assertSame(replayed.get(k), restored, "snapshot at event " + k);
      ClusterState s = restored;
      for (Event e : journal.subList(k, journal.size())) {
        s = StateMachine.apply(s, e);
      }
      StateDiff.assertSame(end, s, "snapshot at event " + k + " + tail, seed " + seed);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {5, 6})
  void imageRestoreImageIsStable(long seed) {
    Workload w = new Workload(seed).runUntil(EVENTS);
    List<ClusterState> replayed = replayEach(w.driver.journal);
    for (int k = 0; k < replayed.size(); k += 7) {
      List<Event> image = Snapshots.image(replayed.get(k));
      List<Event> again =
          Snapshots.image(
              StateMachine.restore(ClusterState.EMPTY, image, replayed.get(k).lastSeq()));
      assertEquals(image, again, "image at event " + k);
    }
  }

  /** Preemption by suspending needs a full cluster at the right moment: not every seed has it. */
  @Test
  void theWorkloadsSuspendAndResumeJobs() {
    Set<Event.BodyCase> kinds = EnumSet.noneOf(Event.BodyCase.class);
    for (long seed : new long[] {1, 2, 3, 42, 2024}) {
      new Workload(seed).runUntil(EVENTS).driver.journal.forEach(e -> kinds.add(e.getBodyCase()));
    }
    assertTrue(kinds.contains(Event.BodyCase.JOB_SUSPENDED), kinds.toString());
    assertTrue(kinds.contains(Event.BodyCase.JOB_SUSPEND_CONFIRMED), kinds.toString());
    assertTrue(kinds.contains(Event.BodyCase.JOB_RESUMED), kinds.toString());
  }

  /** The property only means something if the journal exercised the state machine. */
  private static void assertVariedJournal(Workload w) {
    Set<Event.BodyCase> kinds = EnumSet.noneOf(Event.BodyCase.class);
    w.driver.journal.forEach(e -> kinds.add(e.getBodyCase()));
    for (Event.BodyCase k :
        List.of(
            Event.BodyCase.JOB_SUBMITTED,
            Event.BodyCase.JOB_DISPATCHED,
            Event.BodyCase.JOB_STARTED,
            Event.BodyCase.JOB_EXITED,
            Event.BodyCase.JOB_HELD,
            Event.BodyCase.JOB_RELEASED,
            Event.BodyCase.JOB_DELETED,
            Event.BodyCase.JOB_PURGED,
            Event.BodyCase.JOB_REQUEUED,
            Event.BodyCase.JOB_ALTERED,
            Event.BodyCase.NODE_UPDATED,
            Event.BodyCase.RESERVATION_CREATED,
            Event.BodyCase.RESERVATION_BEGAN,
            Event.BodyCase.RESERVATION_ENDED,
            Event.BodyCase.RESERVATION_REMOVED)) {
      assertTrue(kinds.contains(k), "journal has " + k + ": " + kinds);
    }
    assertFalse(w.driver.state.userUsage().isEmpty(), "jobs that ran charged fair-share usage");
    assertTrue(
        w.driver.state.jobs().stream().anyMatch(j -> !j.getArrayParent().isEmpty())
            || w.driver.journal.stream()
                .anyMatch(
                    e ->
                        e.hasJobSubmitted()
                            && !e.getJobSubmitted().getJob().getArrayRequest().isEmpty()),
        "arrays were submitted");
    assertTrue(
        w.driver.journal.stream()
            .anyMatch(
                e ->
                    e.hasJobSubmitted()
                        && e.getJobSubmitted().getJob().getState() == JobState.HELD),
        "held jobs were submitted");
  }
}
