package dev.berth.scheduler;

import static dev.berth.scheduler.Fixtures.alloc;
import static dev.berth.scheduler.Fixtures.group;
import static dev.berth.scheduler.Fixtures.job;
import static dev.berth.scheduler.Fixtures.node;
import static dev.berth.scheduler.Fixtures.nodes;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Job;
import dev.berth.proto.NodeGroup;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Backfill by walltime, worked by hand: "now" is 1000, walltimes in seconds, and the running jobs'
 * ends are their starts plus their walltimes.
 */
class BackfillTest {
  private static final int MANY = 1000;
  private static final long NOW = 1000;
  private static final SchedulerSettings EASY =
      new SchedulerSettings(PriorityWeights.DEFAULT, 1, false);

  private static Job timed(String id, long walltime, NodeGroup... groups) {
    return job(id, nodes(groups).setWalltime(walltime));
  }

  private static FakeView view(
      SchedulerSettings settings, List<NodeCapacity> nodes, List<RunningJob> running, Job... jobs) {
    FakeView v = new FakeView(nodes, List.of(jobs));
    v.settings = settings;
    v.now = NOW;
    v.runningJobs = running;
    return v;
  }

  private static List<String> started(Plan plan) {
    return plan.decisions().stream().map(RunDecision::jobId).toList();
  }

  /** Two nodes of 4 CPUs; r holds 2 CPUs of n1 until 1100 and all of n2 until 1500. */
  private static FakeView twoNodes(SchedulerSettings settings, Job... jobs) {
    return view(
        settings,
        List.of(node("n1", 4).free(2, 3).build(), node("n2", 4).free().build()),
        List.of(
            new RunningJob("r1", 1100, List.of(alloc("n1", 0, 1))),
            new RunningJob("r2", 1500, List.of(alloc("n2", 0, 1, 2, 3)))),
        jobs);
  }

  @Test
  void theFirstJobThatCannotStartGetsTheEarliestStartItFits() {
    // wide needs a whole node: n1 is whole at 1100, when r1 ends.
    Plan plan = Planner.plan(twoNodes(EASY, timed("wide", 600, group(1, 4))), MANY);
    assertEquals(List.of(), started(plan));
    assertEquals(
        new Waiting("not enough free resources; its start is reserved", 1100),
        plan.waitingOf("wide"));
    assertEquals(
        "Not Running: not enough free resources; its start is reserved",
        plan.waitingOf("wide").comment());
  }

  @Test
  void aLaterJobStartsIfItEndsBeforeTheReservedStart() {
    Plan plan =
        Planner.plan(
            twoNodes(
                EASY,
                timed("wide", 600, group(1, 4)),
                timed("short", 100, group(1, 1)),
                timed("long", 101, group(1, 1))),
            MANY);
    // short ends at 1100, as wide's reservation of all n1 begins; long would hold a CPU past it.
    assertEquals(List.of("short"), started(plan));
    assertEquals(
        new Waiting("it would delay the reserved start of a job of higher priority", 0),
        plan.waitingOf("long"));
  }

  @Test
  void aLongJobStartsWhereTheReservationDoesNotNeedIt() {
    // Three nodes: n1 (2 free, whole at 1100), n2 full until 1500, n3 with 2 free for ever. wide
    // is reserved on n1 at 1100; a long job on n3 leaves that alone and may start, on n1 not.
    FakeView v =
        view(
            EASY,
            List.of(
                node("n1", 4).free(2, 3).build(),
                node("n2", 4).free().build(),
                node("n3", 4).free(0, 1).build()),
            List.of(
                new RunningJob("r1", 1100, List.of(alloc("n1", 0, 1))),
                new RunningJob("r2", 1500, List.of(alloc("n2", 0, 1, 2, 3))),
                new RunningJob("r3", RunningJob.UNKNOWN_END, List.of(alloc("n3", 2, 3)))),
            timed("wide", 600, group(1, 4)),
            timed("long", 5000, group(1, 2)),
            timed("long2", 5000, group(1, 2)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(new RunDecision("long", List.of(alloc("n3", 0, 1)))), plan.decisions());
    assertEquals(1100, plan.waitingOf("wide").estimatedStart());
    assertEquals(
        "it would delay the reserved start of a job of higher priority",
        plan.waitingOf("long2").reason());
  }

  @Test
  void aJobWithoutAWalltimeMayOnlyUseWhatNoReservationNeeds() {
    Plan plan =
        Planner.plan(
            twoNodes(EASY, timed("wide", 600, group(1, 4)), job("forever", group(1, 1))), MANY);
    assertEquals(List.of(), started(plan));
    assertEquals(1100, plan.waitingOf("wide").estimatedStart());
  }

  @Test
  void withoutKnownEndsNoStartCanBePlannedAndOthersStillFit() {
    // r holds n1's other CPUs without a walltime: wide cannot be planned, small jobs pass it.
    FakeView v =
        view(
            EASY,
            List.of(node("n1", 4).free(2, 3).build()),
            List.of(new RunningJob("r", RunningJob.UNKNOWN_END, List.of(alloc("n1", 0, 1)))),
            timed("wide", 600, group(1, 4)),
            timed("small", 5000, group(1, 1)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("small"), started(plan));
    assertEquals(0, plan.waitingOf("wide").estimatedStart());
    assertEquals(
        "not enough free resources, and no start can be planned: what it needs is held by jobs"
            + " without a walltime, or on nodes that are down or offline",
        plan.waitingOf("wide").reason());
  }

  @Test
  void aSecondReservationComesAfterTheFirstAndProtectsItsOwnStart() {
    // depth 2. wide1 (whole node, 600 s) reserved on n1 at 1100; wide2 (whole node, 400 s): n1 is
    // taken 1100-1700 and n2 is whole at 1500, so 1500 on n2. mid (2 CPUs, 450 s) fits on n1 now
    // but would overlap wide1 from 1100, and both reservations are taken; tiny (100 s) ends at
    // 1100 and starts.
    SchedulerSettings depth2 = new SchedulerSettings(PriorityWeights.DEFAULT, 2, false);
    Plan plan =
        Planner.plan(
            twoNodes(
                depth2,
                timed("wide1", 600, group(1, 4)),
                timed("wide2", 400, group(1, 4)),
                timed("mid", 450, group(1, 2)),
                timed("tiny", 100, group(1, 1))),
            MANY);
    assertEquals(List.of("tiny"), started(plan));
    assertEquals(1100, plan.waitingOf("wide1").estimatedStart());
    assertEquals(1500, plan.waitingOf("wide2").estimatedStart());
    assertEquals(
        "it would delay the reserved start of a job of higher priority",
        plan.waitingOf("mid").reason());
  }

  @Test
  void strictOrderingStopsAtTheFirstJobThatCannotStart() {
    SchedulerSettings strict = new SchedulerSettings(PriorityWeights.DEFAULT, 1, true);
    FakeView v = twoNodes(strict, timed("wide", 600, group(1, 4)), timed("short", 10, group(1, 1)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(), started(plan));
    assertEquals(1100, plan.waitingOf("wide").estimatedStart());
    assertEquals(
        "Not Running: strict_ordering: waiting behind job wide", plan.waitingOf("short").comment());
    assertEquals(List.of("wide"), v.pulled);
  }

  @Test
  void aJobAtALimitSaysWhichAndGetsNoReservation() {
    FakeView v =
        twoNodes(
            EASY,
            Fixtures.subjob("7[].s", 1, 1, group(1, 1)).toBuilder()
                .setResources(nodes(group(1, 1)).setWalltime(100))
                .build(),
            Fixtures.subjob("7[].s", 2, 1, group(1, 4)),
            timed("wide", 600, group(1, 4)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("7[1].s"), started(plan));
    assertEquals("the slot limit of array 7[].s (1) is reached", plan.waitingOf("7[2].s").reason());
    assertEquals(1100, plan.waitingOf("wide").estimatedStart());
  }

  @Test
  void jobsTheCycleDidNotReachShareOneReason() {
    FakeView v =
        twoNodes(
            EASY,
            timed("wide", 600, group(1, 4)),
            timed("a", 10, group(1, 2)),
            timed("b", 10, group(1, 1)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("a"), started(plan));
    assertEquals(new Waiting("no CPU is free", 0), plan.waitingOf("b"));
    assertEquals(List.of("wide", "a", "b"), v.pulled);
  }

  @Test
  void depthZeroLetsNarrowJobsPassForEver() {
    FakeView v =
        twoNodes(
            FakeView.FIRST_FIT, timed("wide", 600, group(1, 4)), timed("long", 9999, group(1, 2)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("long"), started(plan));
    assertEquals(new Waiting("not enough free resources", 0), plan.waitingOf("wide"));
  }

  @Test
  void aJobWhoseStartCannotBePlannedLeavesTheReservationToTheNext() {
    // "gone" needs a node that is down: no start can be planned for it; wide gets the
    // reservation, and long, which would delay wide, waits
    FakeView v =
        view(
            EASY,
            List.of(
                node("n1", 4).free(2, 3).build(),
                node("n2", 4).free().build(),
                node("n9", 8).unusable().build()),
            List.of(
                new RunningJob("r1", 1100, List.of(alloc("n1", 0, 1))),
                new RunningJob("r2", 1500, List.of(alloc("n2", 0, 1, 2, 3)))),
            timed("gone", 600, group(1, 8)),
            timed("wide", 600, group(1, 4)),
            timed("long", 5000, group(1, 2)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(), started(plan));
    assertEquals(0, plan.waitingOf("gone").estimatedStart());
    assertEquals(1100, plan.waitingOf("wide").estimatedStart());
    assertEquals(
        "it would delay the reserved start of a job of higher priority",
        plan.waitingOf("long").reason());
  }

  @Test
  void aJobOfSeveralGroupsIsReservedWhereFirstFitFitsItEvenIfLaterMomentsDoNot() {
    // 2 CPUs anywhere and 1 on a bigmem node. At 1100 n2 is free: n2 takes the 2, n1 (bigmem,
    // one CPU free) the 1. At 1200 and 1300 n1 is whole and first fit gives it the 2, leaving no
    // bigmem node (n3's job has no walltime): fits at 1100 only, which bisection alone misses.
    FakeView v =
        view(
            EASY,
            List.of(
                node("n1", 2).props("bigmem").free(1).build(),
                node("n2", 2).free().build(),
                node("n3", 2).props("bigmem").free().build(),
                node("n4", 2).free().build()),
            List.of(
                new RunningJob("r1", 1200, List.of(alloc("n1", 0))),
                new RunningJob("r2", 1100, List.of(alloc("n2", 0, 1))),
                new RunningJob("r3", RunningJob.UNKNOWN_END, List.of(alloc("n3", 0, 1))),
                new RunningJob("r4", 1300, List.of(alloc("n4", 0, 1)))),
            timed("pair", 600, group(1, 2), group(1, 1, "bigmem")));
    assertEquals(1100, Planner.plan(v, MANY).waitingOf("pair").estimatedStart());
  }

  @Test
  void inOrderStopsAtTheFirstJobThatDoesNotFitAndSearchesNoReservation() {
    FakeView v =
        twoNodes(
            EASY,
            timed("small", 10, group(1, 1)),
            timed("wide", 600, group(1, 4)),
            timed("short", 10, group(1, 1)));
    v.runningJobs = null; // would fail if read
    Plan plan = Planner.inOrder(v, MANY, 100);
    assertEquals(List.of("small"), started(plan));
    assertEquals(List.of("small", "wide"), v.pulled);
  }
}
