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
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Preemption worked by hand: queue "express" is a preemptor; n1 and n2 have 4 CPUs each and are
 * full. On n1, a (started at 100) holds CPUs 0-2 and c (started at 300) CPU 3; on n2, b (started at
 * 200) holds all four. "now" is 1000.
 */
class PreemptionPlanningTest {
  private static final int MANY = 1000;
  private static final PreemptableJob A =
      new PreemptableJob("a", 100, List.of(alloc("n1", 0, 1, 2)), false);
  private static final PreemptableJob B =
      new PreemptableJob("b", 200, List.of(alloc("n2", 0, 1, 2, 3)), false);
  private static final PreemptableJob C =
      new PreemptableJob("c", 300, List.of(alloc("n1", 3)), false);

  private static Job express(String id, NodeGroup... groups) {
    return job(id, nodes(groups).setWalltime(600)).toBuilder().setQueue("express").build();
  }

  private static FakeView full(List<PreemptableJob> running, Job... jobs) {
    FakeView v =
        new FakeView(
            List.of(node("n1", 4).free().build(), node("n2", 4).free().build()), List.of(jobs));
    v.now = 1000;
    v.preemptorQueues = Set.of("express");
    v.preemptable = running;
    v.runningJobs =
        running.stream().map(p -> new RunningJob(p.jobId(), 5000, p.allocations())).toList();
    return v;
  }

  @Test
  void aPreemptorsJobRequeuesTheFewestYoungestJobsThatMakeRoom() {
    // youngest first: c frees one CPU of n1 (not enough), b all of n2 (enough); c is not needed.
    Plan plan = Planner.plan(full(List.of(A, B, C), express("x", group(1, 4))), MANY);
    assertEquals(List.of(), plan.decisions());
    assertEquals(List.of(new Preemption("b", "x")), plan.preemptions());
    assertEquals(
        "preempting job b (requeued); it starts when they have ended",
        plan.waitingOf("x").reason());
  }

  @Test
  void aWideJobRequeuesAsManyAsItNeeds() {
    Plan plan = Planner.plan(full(List.of(A, B, C), express("x", group(2, 4))), MANY);
    assertEquals(
        List.of(new Preemption("c", "x"), new Preemption("b", "x"), new Preemption("a", "x")),
        plan.preemptions());
  }

  @Test
  void jobsAlreadyBeingKilledAreWaitedForNotAddedTo() {
    PreemptableJob dying = new PreemptableJob("b", 200, B.allocations(), true);
    Plan plan = Planner.plan(full(List.of(A, dying, C), express("x", group(1, 4))), MANY);
    assertEquals(List.of(), plan.preemptions());
    assertEquals(
        "it starts when jobs being preempted or deleted have made room",
        plan.waitingOf("x").reason());
  }

  @Test
  void twoPreemptorsJobsDoNotClaimTheSameVictims() {
    Plan plan =
        Planner.plan(
            full(List.of(A, B, C), express("x", group(1, 4)), express("y", group(1, 4))), MANY);
    assertEquals(
        List.of(new Preemption("b", "x"), new Preemption("c", "y"), new Preemption("a", "y")),
        plan.preemptions());
  }

  @Test
  void otherQueuesJobsNeverPreempt() {
    Plan plan = Planner.plan(full(List.of(A, B, C), job("plain", group(1, 4))), MANY);
    assertEquals(List.of(), plan.preemptions());
  }

  @Test
  void whatNoRequeueCanFreeIsNotTried() {
    Plan plan = Planner.plan(full(List.of(A, B, C), express("x", group(3, 1))), MANY);
    assertEquals(List.of(), plan.preemptions(), "there are only two nodes");
  }

  @Test
  void aPreemptorsJobComesBeforeJobsOfHigherPriority() {
    FakeView v =
        new FakeView(
            List.of(node("n1", 4).build()),
            List.of(job("first", group(1, 4)), express("x", group(1, 4))));
    v.preemptorQueues = Set.of("express");
    assertEquals(
        List.of("x"), Planner.plan(v, MANY).decisions().stream().map(RunDecision::jobId).toList());
  }

  @Test
  void theInWritePlanPreemptsNothing() {
    Plan plan = Planner.inOrder(full(List.of(A, B, C), express("x", group(1, 4))), MANY, MANY);
    assertEquals(List.of(), plan.preemptions());
  }
}
