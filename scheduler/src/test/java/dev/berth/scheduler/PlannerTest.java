package dev.berth.scheduler;

import static dev.berth.scheduler.Fixtures.GB;
import static dev.berth.scheduler.Fixtures.alloc;
import static dev.berth.scheduler.Fixtures.exclusive;
import static dev.berth.scheduler.Fixtures.gpuGroup;
import static dev.berth.scheduler.Fixtures.group;
import static dev.berth.scheduler.Fixtures.host;
import static dev.berth.scheduler.Fixtures.job;
import static dev.berth.scheduler.Fixtures.node;
import static dev.berth.scheduler.Fixtures.nodes;
import static dev.berth.scheduler.Fixtures.subjob;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.proto.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The planner as first fit (backfill_depth 0): what fits starts, in the view's order. */
class PlannerTest {
  private static final int MANY = 1000;

  private static List<String> ids(List<RunDecision> decisions) {
    return decisions.stream().map(RunDecision::jobId).toList();
  }

  @Test
  void nothingToRun() {
    assertEquals(
        List.of(),
        Planner.plan(new FakeView(List.of(node("n1", 4).build()), List.of()), MANY).decisions());
  }

  @Test
  void theViewsOrderDecidesWhoGetsTheCpus() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 4).build()), List.of(job("b", group(1, 4)), job("a", group(1, 4))));
    assertEquals(
        List.of(new RunDecision("b", List.of(alloc("n1", 0, 1, 2, 3)))),
        Planner.plan(view, MANY).decisions());
  }

  @Test
  void laterJobsGetWhatEarlierDecisionsLeft() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 4).build(), node("n2", 4).build()),
            List.of(job("a", group(1, 3)), job("b", group(1, 2)), job("c", group(1, 1))));
    assertEquals(
        List.of(
            new RunDecision("a", List.of(alloc("n1", 0, 1, 2))),
            new RunDecision("b", List.of(alloc("n2", 0, 1))),
            new RunDecision("c", List.of(alloc("n1", 3)))),
        Planner.plan(view, MANY).decisions());
  }

  @Test
  void aJobThatDoesNotFitIsPassedOverNotWaitedFor() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 4).build()),
            List.of(
                job("a", group(1, 3)),
                job("big", group(1, 2)),
                job("never", group(2, 1)),
                job("small", group(1, 1))));
    assertEquals(List.of("a", "small"), ids(Planner.plan(view, MANY).decisions()));
  }

  @Test
  void unsatisfiableHeadDoesNotBlockTheQueue() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 4).build()),
            List.of(job("huge", group(1, 64)), job("x", group(1, 4))));
    assertEquals(List.of("x"), ids(Planner.plan(view, MANY).decisions()));
  }

  @Test
  void stopsOnceNoCpuIsFree() {
    List<Job> jobs = new ArrayList<>();
    jobs.add(job("a", group(1, 2)));
    for (int i = 0; i < 5; i++) {
      jobs.add(job("w" + i, group(1, 1)));
    }
    FakeView view = new FakeView(List.of(node("n1", 2).build()), jobs);
    assertEquals(List.of("a"), ids(Planner.plan(view, MANY).decisions()));
    // a is placed, w0 is looked at and the cycle ends: w1..w4 are never pulled
    assertEquals(List.of("a", "w0"), view.pulled);
  }

  @Test
  void jobsLargerThanTheRoomLeftArePassedOverAndSmallerOnesStillStart() {
    // three nodes with one CPU free each: two on one node fit nowhere, four in all are more than
    // are free, three nodes of one CPU fit, and so does one CPU after them
    FakeView view =
        new FakeView(
            List.of(
                node("n1", 4).free(3).idle(false).build(),
                node("n2", 4).free(3).idle(false).build(),
                node("n3", 4).free(3).idle(false).build()),
            List.of(
                job("two", group(1, 2)),
                job("four", group(4, 1)),
                job("three", group(3, 1)),
                job("one", group(1, 1))));
    assertEquals(List.of("three"), ids(Planner.plan(view, MANY).decisions()));
    FakeView again =
        new FakeView(
            List.of(
                node("n1", 4).free(1).idle(false).build(),
                node("n2", 4).free(2, 3).idle(false).build()),
            List.of(job("two", group(1, 2)), job("one", group(1, 1))));
    assertEquals(List.of("two", "one"), ids(Planner.plan(again, MANY).decisions()));
  }

  @Test
  void fullClusterPlansNothing() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 2).free().build()),
            List.of(job("a", group(1, 1)), job("b", group(1, 1))));
    assertEquals(List.of(), Planner.plan(view, MANY).decisions());
    assertEquals(List.of("a"), view.pulled);
  }

  @Test
  void freeCpusOnUnusableNodesDoNotKeepTheCycleGoing() {
    FakeView view =
        new FakeView(
            List.of(node("down", 8).unusable().build(), node("n1", 1).build()),
            List.of(job("a", group(1, 1)), job("b", group(1, 1)), job("c", group(1, 1))));
    assertEquals(List.of("a"), ids(Planner.plan(view, MANY).decisions()));
    assertEquals(List.of("a", "b"), view.pulled);
  }

  @Test
  void maxDecisionsCapsThePlan() {
    List<Job> jobs = List.of(job("a", group(1, 1)), job("b", group(1, 1)), job("c", group(1, 1)));
    FakeView view = new FakeView(List.of(node("n1", 8).build()), jobs);
    assertEquals(List.of("a", "b"), ids(Planner.plan(view, 2).decisions()));
    assertEquals(List.of(), Planner.plan(view, 0).decisions());
    assertEquals(List.of("a", "b", "c"), ids(Planner.plan(view, 3).decisions()));
  }

  @Test
  void maxConsideredBoundsTheJobsLookedAtPlacedOrNot() {
    List<Job> jobs =
        List.of(job("huge", group(1, 64)), job("a", group(1, 1)), job("b", group(1, 1)));
    FakeView view = new FakeView(List.of(node("n1", 8).build()), jobs);
    assertEquals(
        List.of(),
        Planner.plan(view, MANY, 1).decisions(),
        "only the job that does not fit was seen");
    assertEquals(List.of("a"), ids(Planner.plan(view, MANY, 2).decisions()));
    assertEquals(List.of("a", "b"), ids(Planner.plan(view, MANY, 3).decisions()));
  }

  @Test
  void passedOverJobsDoNotCountTowardsMaxDecisions() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).build()),
            List.of(job("huge", group(1, 64)), job("a", group(1, 1)), job("b", group(1, 1))));
    assertEquals(List.of("a"), ids(Planner.plan(view, 1).decisions()));
  }

  @Test
  void memoryReservedEarlierInTheCycleIsNotGivenAgain() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).mem(8 * GB).build(), node("n2", 8).mem(8 * GB).build()),
            List.of(
                job("a", nodes(group(1, 1)).setMem(6 * GB)),
                job("b", nodes(group(1, 1)).setMem(6 * GB)),
                job("c", nodes(group(1, 1)).setMem(2 * GB))));
    List<RunDecision> plan = Planner.plan(view, MANY).decisions();
    assertEquals(
        List.of(
            new RunDecision("a", List.of(alloc("n1", List.of(0), 6 * GB, 0))),
            new RunDecision("b", List.of(alloc("n2", List.of(0), 6 * GB, 0))),
            new RunDecision("c", List.of(alloc("n1", List.of(1), 2 * GB, 0)))),
        plan);
  }

  @Test
  void gpusReservedEarlierInTheCycleAreNotGivenAgain() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).gpus(1).build(), node("n2", 8).gpus(1).build()),
            List.of(
                job("a", gpuGroup(1, 1, 1)),
                job("b", gpuGroup(1, 1, 1)),
                job("c", gpuGroup(1, 1, 1))));
    List<RunDecision> plan = Planner.plan(view, MANY).decisions();
    assertEquals(List.of("a", "b"), ids(plan));
    assertEquals("n1", plan.get(0).allocations().get(0).getNode());
    assertEquals("n2", plan.get(1).allocations().get(0).getNode());
  }

  @Test
  void nodeUsedEarlierInTheCycleIsNoLongerIdleForExclusiveJobs() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 4).build(), node("n2", 4).build()),
            List.of(
                job("a", group(1, 1)),
                exclusive("x", group(1, 1)),
                exclusive("y", group(1, 1)),
                job("b", group(1, 1))));
    assertEquals(
        List.of(
            new RunDecision("a", List.of(alloc("n1", 0))),
            new RunDecision("x", List.of(alloc("n2", 0, 1, 2, 3))),
            new RunDecision("b", List.of(alloc("n1", 1)))),
        Planner.plan(view, MANY).decisions());
  }

  @Test
  void namedHostJobWaitsForItsHostWhileOthersRun() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 2).build(), node("n2", 2).build()),
            List.of(job("a", host("n1", 2)), job("b", host("n1", 1)), job("c", group(1, 2))));
    assertEquals(
        List.of(
            new RunDecision("a", List.of(alloc("n1", 0, 1))),
            new RunDecision("c", List.of(alloc("n2", 0, 1)))),
        Planner.plan(view, MANY).decisions());
  }

  @Test
  void arraySlotLimitCountsSubjobsAlreadyRunning() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).build()),
            List.of(
                subjob("7[].s", 2, 2, group(1, 1)),
                subjob("7[].s", 3, 2, group(1, 1)),
                subjob("7[].s", 4, 2, group(1, 1))),
            Map.of("7[].s", 1));
    assertEquals(List.of("7[2].s"), ids(Planner.plan(view, MANY).decisions()));
    assertEquals(List.of("7[].s"), view.askedAbout); // asked once per cycle
  }

  @Test
  void arraySlotLimitCountsSubjobsStartedThisCycle() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).build()),
            List.of(
                subjob("7[].s", 1, 2, group(1, 1)),
                subjob("7[].s", 2, 2, group(1, 1)),
                subjob("7[].s", 3, 2, group(1, 1)),
                job("plain", group(1, 1))));
    assertEquals(List.of("7[1].s", "7[2].s", "plain"), ids(Planner.plan(view, MANY).decisions()));
  }

  @Test
  void arrayAtItsSlotLimitRunsNothing() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).build()),
            List.of(subjob("7[].s", 5, 4, group(1, 1))),
            Map.of("7[].s", 4));
    assertEquals(List.of(), Planner.plan(view, MANY).decisions());
  }

  @Test
  void slotLimitsArePerArray() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).build()),
            List.of(
                subjob("7[].s", 1, 1, group(1, 1)),
                subjob("7[].s", 2, 1, group(1, 1)),
                subjob("8[].s", 1, 1, group(1, 1)),
                subjob("8[].s", 2, 1, group(1, 1))));
    assertEquals(List.of("7[1].s", "8[1].s"), ids(Planner.plan(view, MANY).decisions()));
  }

  @Test
  void noSlotLimitMeansNoLimitAndNoQuestion() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 8).build()),
            List.of(
                subjob("7[].s", 1, 0, group(1, 1)),
                subjob("7[].s", 2, 0, group(1, 1)),
                subjob("7[].s", 3, 0, group(1, 1))),
            Map.of("7[].s", 100));
    assertEquals(List.of("7[1].s", "7[2].s", "7[3].s"), ids(Planner.plan(view, MANY).decisions()));
    assertEquals(List.of(), view.askedAbout);
  }

  @Test
  void subjobThatDoesNotFitDoesNotUseASlot() {
    FakeView view =
        new FakeView(
            List.of(node("n1", 2).build()),
            List.of(subjob("7[].s", 1, 1, group(1, 4)), subjob("7[].s", 2, 1, group(1, 1))));
    assertEquals(List.of("7[2].s"), ids(Planner.plan(view, MANY).decisions()));
  }

  @Test
  void planIsImmutableAndLeavesTheViewAlone() {
    NodeCapacity n1 = node("n1", 2).build();
    FakeView view = new FakeView(List.of(n1), List.of(job("a", group(1, 2))));
    List<RunDecision> plan = Planner.plan(view, MANY).decisions();
    assertThrows(UnsupportedOperationException.class, () -> plan.add(plan.get(0)));
    assertEquals(List.of(n1), view.nodes());
    assertEquals(List.of(0, 1), view.nodes().get(0).freeCpus());
  }

  @Test
  void aStartRemovesItsAllocationFromWhatIsFreeNow() {
    Availability a =
        new Availability(
            0,
            List.of(
                node("n1", 4).mem(8 * GB).gpus(2).build(),
                node("n2", 4).mem(8 * GB).gpus(2).build()),
            List.of(),
            List::of);
    a.start(List.of(alloc("n2", List.of(1, 3), 3 * GB, 1)), RunningJob.UNKNOWN_END);
    assertEquals(node("n1", 4).mem(8 * GB).gpus(2).build(), a.now().get(0));
    NodeCapacity n2 = a.now().get(1);
    assertEquals(List.of(0, 2), n2.freeCpus());
    assertEquals(List.of(0, 1, 2, 3), n2.cpuIds());
    assertEquals(8 * GB, n2.physmem());
    assertEquals(5 * GB, n2.memFree());
    assertEquals(2, n2.gpus());
    assertEquals(1, n2.gpusFree());
    assertFalse(n2.idle());
    assertEquals(true, n2.usable());
  }
}
