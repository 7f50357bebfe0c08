package dev.berth.server.state;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.Manage;
import dev.berth.proto.MoveJob;
import dev.berth.proto.Request;
import dev.berth.server.testing.Driver;
import dev.berth.server.testing.Workload;
import dev.berth.server.testing.WorstCaseArray;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the jobs take of the server's memory is kept as they change, and is the same whichever way
 * the state was made: live, replayed from the journal, or restored from a snapshot at any event
 * (with the events after it). A subjob counts what differs from its parent, which stays so when the
 * parent changes state or queue.
 */
class JobBytesTest {
  /** Each owner's sum made afresh from the jobs and scripts, as the state's should be. */
  private static Map<String, Long> recounted(ClusterState s) {
    Map<String, Long> sums = new HashMap<>();
    for (Job j : s.jobs()) {
      Job parent = s.jobs.get(j.getArrayParent());
      long bytes = JobBytes.held(j, parent);
      if (s.scripts.containsKey(j.getId())) {
        bytes += JobBytes.script(s.scripts.get(j.getId()));
      }
      sums.merge(j.getEuser(), bytes, Long::sum);
    }
    return sums;
  }

  private static void assertCounted(ClusterState s, String context) {
    Map<String, Long> sums = recounted(s);
    for (Map.Entry<String, Long> e : sums.entrySet()) {
      assertEquals(e.getValue(), s.jobBytes().of(e.getKey()), context + ": " + e.getKey());
    }
    assertEquals(
        sums.values().stream().mapToLong(Long::longValue).sum(), s.jobBytes().total(), context);
  }

  /** Bob's array with a large environment goes through everything that changes its subjobs. */
  private static Driver arrayHistory() {
    Driver d = Driver.withTwoNodes();
    d.qmgr(
        ROOT,
        Manage.Command.CREATE,
        Manage.ObjectType.QUEUE,
        List.of("long"),
        attr("queue_type", "execution"),
        attr("enabled", "True"),
        attr("started", "True"));
    String array = d.submit(BOB, WorstCaseArray.attributes(6).toArray(Attribute[]::new));
    String plain = d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"));
    String dependent =
        d.submit(
            ALICE,
            attr(AttributeNames.DEPEND, "afterok:" + plain + ":" + array.replace("[]", "[3]")));
    d.qdel(BOB, d.submit(BOB));
    d.qalter(
        BOB,
        array.replace("[]", "[1]"),
        attr(AttributeNames.VARIABLE_LIST, "OWN=" + "v".repeat(5000)));
    d.qalter(BOB, array.replace("[]", "[2]"), attr(AttributeNames.JOB_NAME, "renamed"));
    d.client(
        BOB,
        Request.newBuilder().setMove(MoveJob.newBuilder().setJobId(array).setDestination("long")));
    d.schedule(); // the array's parent runs, then completes, as its subjobs do
    for (Job j : List.copyOf(d.state.holding().values())) {
      d.started(j.getId());
      d.obit(j.getId(), 0);
    }
    d.qrls(ALICE, plain, "u");
    d.runToEnd(plain, 0);
    d.runToEnd(dependent, 0); // released once both jobs it names ended well
    d.advance(3600);
    d.tick(); // purges them all
    return d;
  }

  @Test
  void theSumsAreWhatTheJobsHoldAfterEveryEvent() {
    Driver d = arrayHistory();
    ClusterState s = ClusterState.EMPTY;
    for (Event e : d.journal) {
      s = StateMachine.apply(s, e);
      assertCounted(s, "after event " + e.getSeq() + " " + e.getBodyCase());
    }
    StateDiff.assertSame(d.state, s, "replayed");
  }

  @Test
  void aSnapshotAtAnyEventRestoresTheSameSums() {
    Driver d = arrayHistory();
    ClusterState s = ClusterState.EMPTY;
    for (Event e : d.journal) {
      s = StateMachine.apply(s, e);
      ClusterState restored =
          StateMachine.restore(ClusterState.EMPTY, Snapshots.image(s), e.getSeq());
      assertEquals(s.jobBytes(), restored.jobBytes(), "snapshot at event " + e.getSeq());
      StateDiff.assertSame(s, restored, "snapshot at event " + e.getSeq());
    }
  }

  @Test
  void randomHistoriesKeepTheSumsTrue() {
    for (long seed : new long[] {3, 11, 2024}) {
      Workload w = new Workload(seed).runUntil(300);
      assertCounted(w.driver.state, "seed " + seed);
    }
  }

  @Test
  void aSubjobCountsWhatDiffersFromItsParent() {
    Driver d = Driver.withTwoNodes();
    String array = d.submit(BOB, WorstCaseArray.attributes(100).toArray(Attribute[]::new));
    Job parent = d.job(array);
    Job subjob = d.job(array.replace("[]", "[7]"));
    long parentBytes = JobBytes.held(parent, null);
    long subjobBytes = JobBytes.held(subjob, parent);
    assertTrue(parentBytes > WorstCaseArray.VARIABLE_BYTES, parentBytes + " bytes");
    assertTrue(subjobBytes < 2048, subjobBytes + " bytes: the environment is the parent's");
    long all = d.state.jobBytes().of("bob");
    assertTrue(
        all < parentBytes + JobBytes.script(d.state.script(parent)) + 100 * 2048,
        all + " bytes: the parent's environment once, not 100 times");

    d.qalter(BOB, subjob.getId(), attr(AttributeNames.VARIABLE_LIST, "MINE=x"));
    long altered = JobBytes.held(d.job(subjob.getId()), parent);
    assertTrue(
        altered > WorstCaseArray.VARIABLE_BYTES,
        altered + " bytes: a subjob given its own environment holds all of it");
  }

  @Test
  void jobsThatLeaveTakeTheirBytesWithThem() {
    Driver d = arrayHistory(); // it ends with every job completed and purged
    assertEquals(0, d.state.jobCount());
    assertEquals(JobBytes.NONE, d.state.jobBytes());
  }
}
