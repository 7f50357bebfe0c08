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
 * Preemption by suspending, worked by hand: queue "express" is a preemptor; n1 and n2 have 4 CPUs
 * each. "now" is 1000.
 */
class SuspendPlanningTest {
  private static final int MANY = 1000;

  private static Job express(String id, NodeGroup... groups) {
    return job(id, nodes(groups).setWalltime(600)).toBuilder().setQueue("express").build();
  }

  private static FakeView view(List<NodeCapacity> nodes, Job... jobs) {
    FakeView v = new FakeView(nodes, List.of(jobs));
    v.now = 1000;
    v.preemptorQueues = Set.of("express");
    return v;
  }

  @Test
  void aPreemptorsJobSuspendsTheYoungestJobWhoseCpusItNeeds() {
    // n1 and n2 full: a (started 100) on all of n1, b (started 200) on all of n2; both suspendable
    FakeView v =
        view(
            List.of(node("n1", 4).free().build(), node("n2", 4).free().build()),
            express("x", group(1, 4)));
    v.preemptable =
        List.of(
            new PreemptableJob("a", 100, List.of(alloc("n1", 0, 1, 2, 3)), false, true),
            new PreemptableJob("b", 200, List.of(alloc("n2", 0, 1, 2, 3)), false, true));
    v.runningJobs =
        List.of(
            new RunningJob("a", 5000, List.of(alloc("n1", 0, 1, 2, 3))),
            new RunningJob("b", 5000, List.of(alloc("n2", 0, 1, 2, 3))));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(), plan.decisions());
    assertEquals(List.of(new Preemption("b", "x", true)), plan.preemptions());
    assertEquals(
        "preempting job b (suspended); it starts when they are suspended",
        plan.waitingOf("x").reason());
  }

  @Test
  void requeuedAndSuspendedVictimsAreNamedApart() {
    FakeView v = view(List.of(node("n1", 4).free().build()), express("x", group(1, 4)));
    v.preemptable =
        List.of(
            new PreemptableJob("a", 100, List.of(alloc("n1", 0, 1)), false, false),
            new PreemptableJob("b", 200, List.of(alloc("n1", 2, 3)), false, true));
    v.runningJobs =
        List.of(
            new RunningJob("a", 5000, List.of(alloc("n1", 0, 1))),
            new RunningJob("b", 5000, List.of(alloc("n1", 2, 3))));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(
        List.of(new Preemption("b", "x", true), new Preemption("a", "x", false)),
        plan.preemptions());
    assertEquals(
        "preempting job a (requeued) and job b (suspended); it starts when they have ended",
        plan.waitingOf("x").reason());
  }

  @Test
  void aPreemptorsJobStartsOnTheCpusASuspendedJobLends() {
    // s is suspended on n1's CPUs 0-3 (not free, lent); n2 has CPU 0 free
    FakeView v =
        view(
            List.of(node("n1", 4).free().build(), node("n2", 4).free(0).build()),
            express("x", group(1, 4)));
    v.runningJobs =
        List.of(
            new RunningJob("s", 9000, List.of(alloc("n1", 0, 1, 2, 3))),
            new RunningJob("r", 5000, List.of(alloc("n2", 1, 2, 3))));
    v.suspended = List.of(new SuspendedJob("s", 900, List.of(alloc("n1", 0, 1, 2, 3)), true));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(new RunDecision("x", List.of(alloc("n1", 0, 1, 2, 3)))), plan.decisions());
    assertEquals(List.of(), plan.resumptions(), "s stays suspended: x runs on its CPUs");
  }

  @Test
  void otherJobsNeverGetLentCpusAndTheSuspendedJobResumesFirst() {
    FakeView v = view(List.of(node("n1", 4).free().build()), job("plain", nodes(group(1, 1))));
    v.runningJobs = List.of(new RunningJob("s", 9000, List.of(alloc("n1", 0, 1, 2, 3))));
    v.suspended = List.of(new SuspendedJob("s", 900, List.of(alloc("n1", 0, 1, 2, 3)), true));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(), plan.decisions());
    assertEquals(List.of("s"), plan.resumptions());
  }

  @Test
  void aPreemptorsJobWaitingElsewhereDoesNotHoldUpAResumption() {
    // x needs 4 CPUs on one node; k is being killed on n2 (all four); s on n1 could resume
    FakeView v =
        view(
            List.of(node("n1", 4).free().build(), node("n2", 4).free().build()),
            express("x", group(1, 4)));
    v.runningJobs =
        List.of(
            new RunningJob("s", 9000, List.of(alloc("n1", 0, 1))),
            new RunningJob("k", 5000, List.of(alloc("n2", 0, 1, 2, 3))),
            new RunningJob("o", 5000, List.of(alloc("n1", 2, 3))));
    v.preemptable = List.of(new PreemptableJob("k", 100, List.of(alloc("n2", 0, 1, 2, 3)), true));
    v.suspended = List.of(new SuspendedJob("s", 900, List.of(alloc("n1", 0, 1)), true));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(
        "it starts when jobs being preempted or deleted have made room",
        plan.waitingOf("x").reason());
    assertEquals(List.of("s"), plan.resumptions());
  }

  @Test
  void aSuspendedJobWhoseCpusAreStillBusyWaits() {
    // p (a preemptor's job) runs on CPUs 0-1 of s's four; 2-3 are idle but lent
    FakeView v = view(List.of(node("n1", 4).free().build()), job("plain", nodes(group(1, 1))));
    v.runningJobs =
        List.of(
            new RunningJob("s", 9000, List.of(alloc("n1", 0, 1, 2, 3))),
            new RunningJob("p", 2000, List.of(alloc("n1", 0, 1))));
    v.suspended = List.of(new SuspendedJob("s", 900, List.of(alloc("n1", 2, 3)), false));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(), plan.decisions(), "the idle lent CPUs are not for plain jobs");
    assertEquals(List.of(), plan.resumptions());
  }

  @Test
  void aPreemptorsJobUsesIdleLentCpusWithFreeOnes() {
    // s lends n1's CPUs 2-3 (0-1 run p); n1 has no free CPU, n2 has 2 free: x needs 2 on one node
    FakeView v =
        view(
            List.of(node("n1", 4).free().build(), node("n2", 4).free(2, 3).build()),
            express("x", group(1, 4)));
    v.runningJobs =
        List.of(
            new RunningJob("s", 9000, List.of(alloc("n1", 0, 1, 2, 3))),
            new RunningJob("p", 2000, List.of(alloc("n1", 0, 1))),
            new RunningJob("r", 2000, List.of(alloc("n2", 0, 1))));
    v.suspended = List.of(new SuspendedJob("s", 900, List.of(alloc("n1", 2, 3)), false));
    Plan plan = Planner.plan(v, MANY);
    assertEquals(List.of(), plan.decisions(), "4 on one node: neither has them");
    v =
        view(
            List.of(node("n1", 4).free().build(), node("n2", 4).free(2, 3).build()),
            express("y", group(2, 2)));
    v.runningJobs =
        List.of(
            new RunningJob("s", 9000, List.of(alloc("n1", 0, 1, 2, 3))),
            new RunningJob("p", 2000, List.of(alloc("n1", 0, 1))),
            new RunningJob("r", 2000, List.of(alloc("n2", 0, 1))));
    v.suspended = List.of(new SuspendedJob("s", 900, List.of(alloc("n1", 2, 3)), false));
    plan = Planner.plan(v, MANY);
    assertEquals(
        List.of(new RunDecision("y", List.of(alloc("n1", 2, 3), alloc("n2", 2, 3)))),
        plan.decisions());
  }
}
