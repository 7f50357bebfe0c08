package dev.berth.scheduler;

import static dev.berth.scheduler.Fixtures.group;
import static dev.berth.scheduler.Fixtures.job;
import static dev.berth.scheduler.Fixtures.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.berth.proto.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrioritiesTest {
  private static final double EPS = 1e-9;
  private static final long NOW = 100_000;
  private static final long DAY = 86_400;

  private static Job queued(String id, String queue, long qtime, int cpus, int p) {
    return job(id, group(1, cpus)).toBuilder()
        .setQueue(queue)
        .setQtime(qtime)
        .setPriority(p)
        .build();
  }

  @Test
  void eachFactorIsWeightedFromZeroToOne() {
    PriorityWeights w = new PriorityWeights(1000, DAY, 500, false, 2000, 100, 0);
    Priorities p =
        new Priorities(w, NOW, 64, Map.of("low", -10, "mid", 0, "high", 30), () -> FairShare.NONE);
    // half a day old, 16 of 64 CPUs, queue mid (10 of the 40 between low and high), -p 0
    JobPriority jp = p.of(queued("a", "mid", NOW - DAY / 2, 16, 0));
    assertEquals(500, jp.age(), EPS);
    assertEquals(125, jp.jobSize(), EPS);
    assertEquals(500, jp.queue(), EPS);
    assertEquals(100 * 1024 / 2047.0, jp.user(), EPS);
    assertEquals(500 + 125 + 500 + 100 * 1024 / 2047.0, jp.value(), EPS);
  }

  @Test
  void ageStopsAtTheMaximumAndCountsFromEligibility() {
    PriorityWeights w = new PriorityWeights(1000, DAY, 0, false, 0, 0, 0);
    Priorities p = new Priorities(w, NOW, 64, Map.of(), () -> FairShare.NONE);
    assertEquals(1000, p.of(queued("old", "q", NOW - 5 * DAY, 1, 0)).age(), EPS);
    Job released =
        queued("held", "q", NOW - 5 * DAY, 1, 0).toBuilder().setEtime(NOW - DAY / 4).build();
    assertEquals(250, p.of(released).age(), EPS);
    assertEquals(0, p.of(queued("future", "q", NOW + 10, 1, 0)).age(), EPS);
  }

  @Test
  void favoringSmallJobsTurnsTheSizeFactorAround() {
    Priorities big =
        new Priorities(
            new PriorityWeights(0, DAY, 100, false, 0, 0, 0),
            NOW,
            10,
            Map.of(),
            () -> FairShare.NONE);
    Priorities small =
        new Priorities(
            new PriorityWeights(0, DAY, 100, true, 0, 0, 0),
            NOW,
            10,
            Map.of(),
            () -> FairShare.NONE);
    Job j = queued("a", "q", NOW, 2, 0);
    assertEquals(20, big.of(j).jobSize(), EPS);
    assertEquals(80, small.of(j).jobSize(), EPS);
  }

  @Test
  void withOnlyTheUsersPriorityTheGivenOrderStandsUnread() {
    Iterable<Job> given = List.of(queued("a", "q", 0, 1, 5), queued("b", "q", 0, 1, 0));
    assertSame(
        given,
        new Priorities(PriorityWeights.DEFAULT, NOW, 8, Map.of(), () -> FairShare.NONE)
            .order(given));
  }

  @Test
  void jobsAreOrderedByPriorityAndTiesKeepTheirOrder() {
    PriorityWeights w = new PriorityWeights(1000, DAY, 0, false, 0, 0, 0);
    Priorities p = new Priorities(w, NOW, 8, Map.of(), () -> FairShare.NONE);
    List<Job> given =
        List.of(
            queued("young", "q", NOW - 10, 1, 0),
            queued("old", "q", NOW - DAY, 1, 0),
            queued("twin1", "q", NOW - 100, 1, 0),
            queued("twin2", "q", NOW - 100, 1, 0));
    List<String> order = new ArrayList<>();
    p.order(given).forEach(j -> order.add(j.getId()));
    assertEquals(List.of("old", "twin1", "twin2", "young"), order);
  }

  @Test
  void theCycleStartsJobsByPriority() {
    // one CPU: with age weighted, the older of two jobs runs although it came second
    FakeView v =
        new FakeView(
            List.of(node("n1", 1).build()),
            List.of(queued("new", "q", NOW - 10, 1, 0), queued("old", "q", NOW - 1000, 1, 0)));
    v.now = NOW;
    v.settings = new SchedulerSettings(new PriorityWeights(1000, DAY, 0, false, 0, 0, 0), 0, false);
    Plan plan = Planner.plan(v, 10);
    assertEquals(List.of("old"), plan.decisions().stream().map(RunDecision::jobId).toList());
    assertEquals("no CPU is free", plan.waitingOf("new").reason());
  }
}
