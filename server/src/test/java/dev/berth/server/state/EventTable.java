package dev.berth.server.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.opentest4j.AssertionFailedError;

/**
 * A state machine test written as a table (Flux's way): each row is one event and what the state
 * must look like after it, or the event and the complaint it must raise. Events get their sequence
 * numbers and times here; a row that fails names its sequence number and event.
 */
final class EventTable {
  /** One expectation about the state after a row. */
  @FunctionalInterface
  interface Check {
    void verify(ClusterState s);
  }

  private ClusterState state = ClusterState.EMPTY;
  private long timeSeconds = 1_000_000;
  private final List<Event> applied = new ArrayList<>();

  /** Events every row builds on; applied without checks. */
  EventTable given(Event.Builder... events) {
    for (Event.Builder e : events) {
      state = StateMachine.apply(state, next(e));
    }
    return this;
  }

  /** Later events carry this time (epoch seconds). */
  EventTable at(long seconds) {
    timeSeconds = seconds;
    return this;
  }

  long now() {
    return timeSeconds;
  }

  EventTable then(Event.Builder body, Check... checks) {
    Event e = next(body);
    try {
      state = StateMachine.apply(state, e);
    } catch (IllegalTransitionException ex) {
      fail("event " + e.getSeq() + " (" + e.getBodyCase() + ") was refused: " + ex.getMessage());
    }
    List<Check> all = new ArrayList<>(List.of(checks));
    all.add(EventTable::countsMatchTheJobs);
    for (Check c : all) {
      try {
        c.verify(state);
      } catch (AssertionFailedError failure) {
        throw new AssertionFailedError(
            "after event " + e.getSeq() + " (" + e.getBodyCase() + "): " + failure.getMessage(),
            failure);
      }
    }
    return this;
  }

  /**
   * The event must be refused with a message naming its sequence number, kind and every fragment;
   * the state stays as it was.
   */
  EventTable rejects(Event.Builder body, String... fragments) {
    Event e = next(body);
    ClusterState before = state;
    IllegalTransitionException ex =
        assertThrows(
            IllegalTransitionException.class,
            () -> StateMachine.apply(before, e),
            "event " + e.getSeq() + " (" + e.getBodyCase() + ") must be refused");
    String message = ex.getMessage();
    assertTrue(
        message.contains("event " + e.getSeq() + " (" + e.getBodyCase() + ")"),
        "message names the event: " + message);
    for (String f : fragments) {
      assertTrue(message.contains(f), "message '" + message + "' should contain '" + f + "'");
    }
    assertSame(before, state);
    return this;
  }

  ClusterState state() {
    return state;
  }

  private Event next(Event.Builder body) {
    Event e =
        body.clone()
            .setSeq(state.lastSeq() + 1)
            .setTime(timeSeconds * 1000)
            .setActor("alice@login1")
            .build();
    applied.add(e);
    return e;
  }

  List<Event> events() {
    return applied;
  }

  // ---- checks ----

  /**
   * Checked after every event: each queue's counts by state, kept as jobs change, are what counting
   * the jobs gives (every job but an array job's own entry).
   */
  private static void countsMatchTheJobs(ClusterState s) {
    Map<String, int[]> scanned = new TreeMap<>();
    for (Job j : s.jobs()) {
      if (j.getArrayRequest().isEmpty()) {
        scanned.computeIfAbsent(j.getQueue(), q -> new int[7])[j.getStateValue()]++;
      }
    }
    int total = 0;
    for (Map.Entry<String, int[]> e : scanned.entrySet()) {
      for (JobState state :
          List.of(
              JobState.QUEUED,
              JobState.HELD,
              JobState.WAITING,
              JobState.RUNNING,
              JobState.EXITING,
              JobState.COMPLETED)) {
        assertEquals(
            e.getValue()[state.getNumber()],
            s.counts(e.getKey()).count(state),
            "jobs of queue " + e.getKey() + " in state " + state);
      }
      total += s.counts(e.getKey()).total();
    }
    assertEquals(s.jobs().stream().filter(j -> j.getArrayRequest().isEmpty()).count(), total);
    assertEquals(total, s.counts().total(), "all queues together");
    Map<ClusterState.Owner, Integer> running = new HashMap<>();
    Map<String, Job> holding = new TreeMap<>();
    Map<String, Job> queued = new TreeMap<>();
    for (Job j : s.jobs()) {
      boolean holdsNodes = j.getState() == JobState.RUNNING || j.getState() == JobState.EXITING;
      if (holdsNodes && j.getArrayRequest().isEmpty()) {
        running.merge(new ClusterState.Owner("", j.getEuser()), 1, Integer::sum);
        running.merge(new ClusterState.Owner(j.getQueue(), j.getEuser()), 1, Integer::sum);
        holding.put(j.getId(), j);
      }
      if (j.getState() == JobState.QUEUED && j.getArrayRequest().isEmpty()) {
        queued.put(j.getId(), j);
      }
    }
    running.forEach((owner, n) -> assertEquals(n, s.running(owner), "running jobs of " + owner));
    assertEquals(running, s.runningByOwner, "no count for an owner with nothing running");
    assertEquals(holding, s.holding(), "the jobs holding nodes, as they are now");
    Map<String, Job> indexed = new TreeMap<>();
    s.eligible().forEach((key, job) -> indexed.put(key.jobId(), job));
    assertEquals(queued, indexed, "the queued jobs, as they are now");
  }

  static Check state(String id, JobState expected) {
    return s -> {
      Job j = s.job(id).orElseThrow(() -> new AssertionFailedError("no job " + id));
      assertEquals(expected, j.getState(), "state of " + id);
    };
  }

  static Check absent(String... ids) {
    return s -> {
      for (String id : ids) {
        assertTrue(s.job(id).isEmpty(), id + " should be gone");
      }
    };
  }

  static <T> Check field(String id, String what, Function<Job, T> get, T expected) {
    return s -> {
      Job j = s.job(id).orElseThrow(() -> new AssertionFailedError("no job " + id));
      assertEquals(expected, get.apply(j), what + " of " + id);
    };
  }

  /** The queued-jobs index, in scheduling order. */
  static Check eligible(String... ids) {
    return s ->
        assertEquals(
            Arrays.asList(ids),
            s.eligible().keySet().stream().map(EligibleKey::jobId).toList(),
            "eligible jobs in order");
  }

  /** The completed-jobs index, oldest first. */
  static Check completed(String... ids) {
    return s ->
        assertEquals(
            Arrays.asList(ids),
            s.completed().stream().map(ClusterState.PurgeKey::jobId).toList(),
            "completed jobs in purge order");
  }

  /** CPU id to job id on {@code node}, as {@code "0=1.srv 1=1.srv"}; empty = idle. */
  static Check cpus(String node, String expected) {
    return s -> {
      Map<Integer, String> want = new TreeMap<>();
      for (String item : expected.split(" ")) {
        if (!item.isEmpty()) {
          String[] kv = item.split("=");
          want.put(Integer.parseInt(kv[0]), kv[1]);
        }
      }
      assertEquals(want, new TreeMap<>(s.usage(node).cpuJobs()), "CPUs held on " + node);
      if (want.isEmpty()) {
        assertSame(NodeUsage.NONE, s.usage(node), "no usage left on " + node);
      }
    };
  }

  static Check counts(String arrayId, int queued, int held, int running, int completed) {
    return s -> {
      ClusterState.ArrayCounts c = s.arrayCounts(arrayId);
      assertEquals(
          List.of(queued, held, running, completed),
          List.of(c.queued(), c.held(), c.running(), c.completed()),
          "subjob counts of " + arrayId);
    };
  }

  static Check nextJobNumber(long expected) {
    return s -> assertEquals(expected, s.nextJobNumber(), "next_job_number");
  }
}
