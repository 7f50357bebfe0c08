package dev.berth.server.state;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.JobState;
import dev.berth.server.testing.Driver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What re-checking dependencies costs: every (waiting job, named job) status the index works out is
 * counted, through the whole pipeline (decide, apply, cascade), per event. Another user's job costs
 * nothing however many jobs wait; a named job's change costs its own waiters, never their whole
 * lists.
 */
class DependencyIndexTest {
  private static final int TARGETS = 200;
  private static final int WAITERS = 50;

  private Driver d;
  private long checks;

  @BeforeEach
  void countingCluster() {
    d = Driver.withTwoNodes();
    StateBuilder b = new StateBuilder(d.state);
    b.dependencies =
        DependencyIndex.empty(
            (types, target) -> {
              checks++;
              return DependencyStatus.of(types, target);
            });
    d.state = b.build();
  }

  private long checksOf(Runnable command) {
    long before = checks;
    command.run();
    return checks - before;
  }

  /** Bob's flood: WAITERS jobs, each waiting on all of his TARGETS jobs (held, so none runs). */
  private List<String> flood() {
    List<String> targets = new ArrayList<>();
    for (int i = 0; i < TARGETS; i++) {
      targets.add(d.submit(BOB, attr(AttributeNames.HOLD_TYPES, "u")));
    }
    String depend = "afterok:" + String.join(":", targets);
    for (int i = 0; i < WAITERS; i++) {
      d.submit(BOB, attr(AttributeNames.DEPEND, depend));
    }
    return targets;
  }

  @Test
  void anotherUsersJobCostsNoCheckHoweverManyJobsWait() {
    flood();
    String alices = d.submit(ALICE);
    assertEquals(0, checksOf(() -> d.schedule()), "dispatch");
    assertEquals(0, checksOf(() -> d.started(alices)), "start");
    assertEquals(0, checksOf(() -> d.obit(alices, 0)), "end");
    assertEquals(JobState.COMPLETED, d.job(alices).getState());
  }

  @Test
  void aNamedJobsChangeCostsItsWaitersOnly() {
    List<String> targets = flood();
    String target = targets.get(0);
    assertEquals(WAITERS, d.state.dependencies().waitersOf(target));
    d.qrls(BOB, target, "u");
    d.schedule();
    // each change of the job takes its old status out of its waiters' counts and puts the new in
    assertEquals(2 * WAITERS, checksOf(() -> d.started(target)), "start");
    assertEquals(2 * WAITERS, checksOf(() -> d.obit(target, 0)), "end");
    assertTrue(d.state.dependencies().decided().isEmpty(), "the others still pend");
  }

  @Test
  void theLastNamedJobReleasesEveryWaiterInOneCascade() {
    List<String> targets = flood();
    for (String t : targets) {
      d.qrls(BOB, t, "u");
    }
    for (String t : targets.subList(0, TARGETS - 1)) {
      d.schedule();
      d.started(t);
      d.obit(t, 0);
    }
    String last = targets.get(TARGETS - 1);
    d.schedule();
    d.started(last);
    int mark = d.journal.size();
    long cost = checksOf(() -> d.obit(last, 0));
    long released = d.eventsSince(mark).stream().filter(e -> e.hasJobReleased()).count();
    assertEquals(WAITERS, released);
    // the end, then each waiter leaving the index once it is released: no list is walked again
    assertEquals(2 * WAITERS, cost);
    assertEquals(0, d.state.dependencies().waitersOf(targets.get(0)));
    assertTrue(d.state.dependencies().decided().isEmpty());
  }

  @Test
  void anArraysSubjobsWaitAsOneWaiter() {
    String first = d.submit(BOB);
    String array =
        d.submit(
            BOB,
            attr(AttributeNames.DEPEND, "afterok:" + first),
            attr(AttributeNames.JOB_ARRAY_REQUEST, "1-100"));
    assertEquals(1, d.state.dependencies().waitersOf(first));
    assertEquals(100, d.state.dependencies().members(array).size());
    String n = array.substring(0, array.indexOf('['));
    d.qhold(BOB, n + "[7].srv", "u");
    assertTrue(d.state.dependencies().waits(d.job(n + "[7].srv")), "still held for it too");
    d.schedule();
    d.started(first);
    assertEquals(2, checksOf(() -> d.obit(first, 0)), "one waiter, not a hundred");
    assertEquals(JobState.QUEUED, d.job(n + "[1].srv").getState());
    assertEquals(JobState.HELD, d.job(n + "[7].srv").getState(), "its user hold stays");
    assertFalse(d.state.dependencies().waits(d.job(n + "[7].srv")));
    assertTrue(d.state.dependencies().members(array).isEmpty());
  }
}
