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
 * Administrators' reservations in a plan, worked by hand: two nodes of 4 CPUs, n1 reserved as R1.s
 * (queue R1) over [1500, 2500); walltimes in seconds.
 */
class ReservationPlanningTest {
  private static final int MANY = 1000;
  private static final AdvanceReservation R1 =
      new AdvanceReservation("R1.s", "R1", 1500, 2500, List.of("n1"));
  private static final SchedulerSettings EASY =
      new SchedulerSettings(PriorityWeights.DEFAULT, 1, false);

  private static Job timed(String id, long walltime, NodeGroup... groups) {
    return job(id, nodes(groups).setWalltime(walltime));
  }

  private static Job inR1(Job job) {
    return job.toBuilder().setQueue("R1").build();
  }

  private static FakeView at(
      long now, List<NodeCapacity> nodes, List<RunningJob> running, Job... jobs) {
    FakeView v = new FakeView(nodes, List.of(jobs));
    v.settings = EASY;
    v.now = now;
    v.runningJobs = running;
    v.reservations = List.of(R1);
    return v;
  }

  private static FakeView freeNodesAt(long now, Job... jobs) {
    return at(now, List.of(node("n1", 4).build(), node("n2", 4).build()), List.of(), jobs);
  }

  /** n2 is held by a job without a walltime; only n1 is free. */
  private static FakeView n2BusyAt(long now, Job... jobs) {
    return at(
        now,
        List.of(node("n1", 4).build(), node("n2", 4).free().build()),
        List.of(new RunningJob("r", RunningJob.UNKNOWN_END, List.of(alloc("n2", 0, 1, 2, 3)))),
        jobs);
  }

  private static List<String> started(Plan plan) {
    return plan.decisions().stream().map(RunDecision::jobId).toList();
  }

  @Test
  void aJobThatEndsBeforeTheWindowUsesTheReservedNode() {
    Plan plan = Planner.plan(freeNodesAt(1000, timed("short", 500, group(1, 4))), MANY);
    assertEquals(
        List.of(new RunDecision("short", List.of(alloc("n1", 0, 1, 2, 3)))), plan.decisions());
  }

  @Test
  void aJobThatWouldRunIntoTheWindowGoesElsewhereOrWaitsForAStartThatMissesIt() {
    // a would end at 1600, in the window: not on n1 but n2. b fits on n1 now but would run into
    // R1 too; its earliest start is a's end on n2, 1600.
    Plan plan =
        Planner.plan(
            freeNodesAt(1000, timed("a", 600, group(1, 4)), timed("b", 600, group(1, 4))), MANY);
    assertEquals(List.of(new RunDecision("a", List.of(alloc("n2", 0, 1, 2, 3)))), plan.decisions());
    assertEquals(
        new Waiting(
            "it would still run when reservation R1.s begins on the nodes it could use; its start"
                + " is reserved",
            1600),
        plan.waitingOf("b"));
  }

  @Test
  void aJobWithoutAWalltimeStartsOnANodeWithAWindowOnlyAfterIt() {
    Plan plan = Planner.plan(n2BusyAt(1000, job("forever", group(1, 1))), MANY);
    assertEquals(List.of(), started(plan));
    assertEquals(
        new Waiting(
            "it has no walltime, so it would still run when reservation R1.s begins on the nodes"
                + " it could use; its start is reserved",
            2500),
        plan.waitingOf("forever"));
  }

  @Test
  void theEarliestStartOfAJobThatMeetsTheWindowIsItsEnd() {
    // n1 is free until 1500 and from 2500; a 600 s job cannot start before 2500.
    Plan plan = Planner.plan(n2BusyAt(1000, timed("w", 600, group(1, 4))), MANY);
    assertEquals(2500, plan.waitingOf("w").estimatedStart());
  }

  @Test
  void aJobOfTheReservationWaitsForItsWindowWithoutHoldingUpOthers() {
    FakeView v =
        freeNodesAt(1000, inR1(timed("x", 100, group(1, 1))), timed("y", 100, group(1, 1)));
    v.settings = new SchedulerSettings(PriorityWeights.DEFAULT, 1, true);
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("y"), started(plan));
    assertEquals(new Waiting("its reservation R1.s has not begun", 1500), plan.waitingOf("x"));
  }

  @Test
  void insideTheWindowTheReservationsJobsHaveItsNodesAndNoOneElseDoes() {
    // At 1600: g fits only on n1, which is R1's now; x, of R1, gets it though it comes later.
    FakeView v = n2BusyAt(1600, timed("g", 100, group(1, 4)), inR1(timed("x", 100, group(1, 4))));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(new RunDecision("x", List.of(alloc("n1", 0, 1, 2, 3)))), plan.decisions());
    assertEquals(
        new Waiting("not enough free resources; its start is reserved", 2500), plan.waitingOf("g"));
  }

  @Test
  void aReservationsJobIsPlannedToEndWithItsWindow() {
    // x asks for 3000 s but is killed at 2500: g, behind it, is reserved n1 at 2500, not 4600.
    FakeView v = n2BusyAt(1600, inR1(timed("x", 3000, group(1, 4))), timed("g", 100, group(1, 4)));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("x"), started(plan));
    assertEquals(2500, plan.waitingOf("g").estimatedStart());
  }

  @Test
  void aReservationsJobGetsOnlyItsNodes() {
    Plan plan = Planner.plan(freeNodesAt(1600, inR1(timed("x", 100, group(2, 1)))), MANY);
    assertEquals(List.of(), started(plan));
    assertEquals("not enough free resources in its reservation R1.s", plan.waitingOf("x").reason());
  }

  @Test
  void afterTheWindowTheNodeIsEveryonesAgain() {
    Plan plan = Planner.plan(n2BusyAt(2500, job("forever", group(1, 4))), MANY);
    assertEquals(List.of("forever"), started(plan));
  }

  @Test
  void strictOrderingHoldsBackOtherJobsButNotTheReservationsOwn() {
    // g cannot start (n1 is R1's now, n2 is busy) and stops the others; x, of R1, still starts.
    FakeView v =
        n2BusyAt(
            1600,
            timed("g", 100, group(1, 4)),
            timed("h", 100, group(1, 1)),
            inR1(timed("x", 100, group(1, 4))));
    v.settings = new SchedulerSettings(PriorityWeights.DEFAULT, 1, true);
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of("x"), started(plan));
    assertEquals("strict_ordering: waiting behind job g", plan.waitingOf("h").reason());
  }

  @Test
  void manyEndsBeforeAWindowStillLeaveAStartAfterIt() {
    // 100 one-CPU nodes, each running a job that ends before the whole-cluster window [2500,
    // 2600): a 3000 s job fits before none of them, so its start is the window's end.
    List<NodeCapacity> nodes = new java.util.ArrayList<>();
    List<RunningJob> running = new java.util.ArrayList<>();
    List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < 100; i++) {
      nodes.add(node("n" + i, 1).free().build());
      names.add("n" + i);
      running.add(new RunningJob("r" + i, 1000 + 10 * (i + 1), List.of(alloc("n" + i, 0))));
    }
    FakeView v = new FakeView(nodes, List.of(timed("narrow", 3000, group(1, 1))));
    v.settings = EASY;
    v.now = 1000;
    v.runningJobs = running;
    v.reservations = List.of(new AdvanceReservation("M.s", "M", 2500, 2600, names));
    assertEquals(2600, Planner.plan(v, MANY).waitingOf("narrow").estimatedStart());
  }

  @Test
  void jobsOfOneShapeThatDidNotFitAreNotTriedAgainAndShareTheirReason() {
    Plan plan =
        Planner.plan(
            n2BusyAt(
                1000,
                timed("a", 600, group(1, 4)),
                timed("b", 600, group(1, 4)),
                timed("c", 700, group(1, 4)),
                timed("d", 100, group(1, 4))),
            MANY);
    assertEquals(List.of("d"), started(plan), "a shorter job of the shape still fits");
    String why = "it would still run when reservation R1.s begins on the nodes it could use";
    assertEquals(why + "; its start is reserved", plan.waitingOf("a").reason());
    assertEquals(why, plan.waitingOf("b").reason());
    assertEquals(why, plan.waitingOf("c").reason());
  }

  @Test
  void theStrictInWritePlanStartsNothingIntoAWindow() {
    Plan plan = Planner.inOrder(freeNodesAt(1000, timed("a", 600, group(1, 4))), MANY, MANY);
    assertEquals(List.of(new RunDecision("a", List.of(alloc("n2", 0, 1, 2, 3)))), plan.decisions());
  }
}
