package dev.berth.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.SchedulerSettings;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Small traces whose schedules are worked out by hand in the comments. */
class SimulationTest {
  private static final double EPS = 1e-9;
  private static final SchedulerSettings FIFO = Policy.FIFO.settings(PriorityWeights.DEFAULT, 0);
  private static final SchedulerSettings FIRSTFIT =
      Policy.FIRSTFIT.settings(PriorityWeights.DEFAULT, 0);
  private static final SchedulerSettings EASY =
      Policy.BACKFILL.settings(PriorityWeights.DEFAULT, 1);

  /** An SWF line of a job that asks for exactly its run time. */
  private static String job(long number, long submit, long runtime, int processors) {
    return line(number, submit, runtime, processors, runtime);
  }

  /** An SWF line of a job whose trace gives no requested time. */
  private static String unrequested(long number, long submit, long runtime, int processors) {
    return line(number, submit, runtime, processors, -1);
  }

  /**
   * An SWF line: number, submit, run time, allocated processors, requested processors and time
   * ({@code -1}: none); the rest unknown.
   */
  private static String line(
      long number, long submit, long runtime, int processors, long requestedTime) {
    return number
        + " "
        + submit
        + " -1 "
        + runtime
        + " "
        + processors
        + " -1 -1 "
        + processors
        + " "
        + requestedTime
        + " -1 1 1 1 -1 1 -1 -1 -1\n";
  }

  /**
   * Two nodes of one CPU, no requested times: 1 (1 CPU, 100 s) at 0; 2 (both CPUs, 10 s) at 1; 3 (1
   * CPU, 500 s) at 2; 4 (1 CPU, 10 s) at 60.
   */
  private static final String NO_REQUESTED_TIMES =
      unrequested(1, 0, 100, 1)
          + unrequested(2, 1, 10, 2)
          + unrequested(3, 2, 500, 1)
          + unrequested(4, 60, 10, 1);

  @Test
  void withoutRequestedTimesBackfillReservesNothingAndActsAsFirstFit() throws IOException {
    // 1 runs 0-100 with no known end, so 2 gets no reserved start: 3 takes the free CPU at 2 and
    // runs to 502, 4 waits for a CPU until 1 ends (100-110), and 2 gets both only at 502.
    SimulationReport r =
        new Simulation(2, 1, EASY, 604800, Estimates.NONE).run(trace(NO_REQUESTED_TIMES));
    assertEquals((0 + 501 + 0 + 40) / 4.0, r.meanWait(), EPS);
    assertEquals(0, r.reserved());
    assertEquals(4, r.withoutRequestedTime());
    assertTrue(
        r.lines().get(r.lines().size() - 1).endsWith("(--missing-time)"), r.lines().toString());
  }

  @Test
  void runTimesAsEstimatesGiveTheWideJobItsReservedStart() throws IOException {
    // 1 is known to end at 100: 2 is reserved a start at 100, so 3 (to 502) may not take the free
    // CPU; 4 (60-70) may, as it ends first. 2 runs 100-110, 3 110-610.
    SimulationReport r =
        new Simulation(2, 1, EASY, 604800, Estimates.parse("runtime"))
            .run(trace(NO_REQUESTED_TIMES));
    assertEquals((0 + 99 + 108 + 0) / 4.0, r.meanWait(), EPS);
    assertEquals(108, r.maxWait());
    assertTrue(r.reserved() >= 1, "2's start was reserved");
    assertEquals(0, r.startedAfterReservation());
    assertEquals(
        "jobs without a requested time 4, planned with their run time",
        r.lines().get(r.lines().size() - 1));
  }

  @Test
  void aFixedEstimateIsRenewedWhileTheJobOutrunsIt() throws IOException {
    // As above, but 4 asks for its 10 s and the others are planned with 50 s each: 1 "ends" at 50,
    // so 2 is reserved 50 and 3 (to 52) may not start. At 60 1 still runs, so it is planned to end
    // at 100 now, and 4 (to 70) fits before 2's start; taken to have ended at 50, 1 would leave 2
    // a start at once that nothing may delay, and 4 would wait. Then 2 100-110, 3 110-610.
    SimulationReport r =
        new Simulation(2, 1, EASY, 604800, Estimates.parse("0:50"))
            .run(
                trace(
                    unrequested(1, 0, 100, 1)
                        + unrequested(2, 1, 10, 2)
                        + unrequested(3, 2, 500, 1)
                        + job(4, 60, 10, 1)));
    assertEquals((0 + 99 + 108 + 0) / 4.0, r.meanWait(), EPS);
    assertEquals(
        "jobs without a requested time 3, planned with 50 s", r.lines().get(r.lines().size() - 1));
  }

  @Test
  void aMissingTimeIsNoneRuntimeOrATime() {
    assertEquals(Estimates.NONE, Estimates.parse("none"));
    assertEquals(new Estimates(Estimates.Kind.FIXED, 3600), Estimates.parse("1:00:00"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Estimates.parse("soon"));
    assertTrue(e.getMessage().startsWith("--missing-time: expected none, runtime or a time"));
    assertThrows(IllegalArgumentException.class, () -> Estimates.parse("0"));
  }

  private static SwfTrace trace(String text) throws IOException {
    return SwfTrace.parse(new StringReader(text));
  }

  @Test
  void jobsWaitInOrderForTheCpusTheyNeed() throws IOException {
    // One node of 4 CPUs. t=0: 1 takes all four until 100. 2 (t=10) and 3 (t=20) wait; at 100,
    // 2 takes all four until 150 and 3 (2 CPUs) cannot start beside it; at 150, 3 runs to 180.
    SimulationReport r =
        new Simulation(1, 4, FIFO)
            .run(trace(job(1, 0, 100, 4) + job(2, 10, 50, 4) + job(3, 20, 30, 2)));
    assertEquals(3, r.jobs());
    assertEquals((0 + 90 + 130) / 3.0, r.meanWait(), EPS);
    assertEquals(130, r.maxWait());
    assertEquals((400 + 200 + 60) / (4.0 * 180), r.utilization(), EPS);
    assertEquals((1 + 140 / 50.0 + 160 / 30.0) / 3, r.meanBoundedSlowdown(), EPS);
  }

  @Test
  void aNarrowJobPassesAWideOneThatDoesNotFitUnderFirstFit() throws IOException {
    // One node of 4 CPUs, all three submitted at 0: 1 (2 CPUs) starts; 2 (4) does not fit; 3 (2)
    // does, and runs to 50; 2 starts when 1 ends at 100 and runs to 200.
    SimulationReport r =
        new Simulation(1, 4, FIRSTFIT)
            .run(trace(job(1, 0, 100, 2) + job(2, 0, 100, 4) + job(3, 0, 50, 2)));
    assertEquals(100 / 3.0, r.meanWait(), EPS);
    assertEquals(100, r.maxWait());
    assertEquals(700 / 800.0, r.utilization(), EPS);
    assertEquals((1 + 2 + 1) / 3.0, r.meanBoundedSlowdown(), EPS);
  }

  /**
   * One node of 4 CPUs, all submitted at 0, each asking for exactly its run time: 1 (2 CPUs, 100
   * s), 2 (4 CPUs, 100 s), 3 (2 CPUs, 50 s), 4 (2 CPUs, 150 s).
   */
  private static final String WIDE_IN_THE_MIDDLE =
      job(1, 0, 100, 2) + job(2, 0, 100, 4) + job(3, 0, 50, 2) + job(4, 0, 150, 2);

  @Test
  void firstComeFirstServedHoldsEveryoneBehindTheWideJob() throws IOException {
    // 1 runs 0-100; 2 cannot start, so nothing after it does; 2 runs 100-200; then 3 (200-250) and
    // 4 (200-350). Waits 0, 100, 200, 200.
    SimulationReport r = new Simulation(1, 4, FIFO).run(trace(WIDE_IN_THE_MIDDLE));
    assertEquals(500 / 4.0, r.meanWait(), EPS);
    assertEquals(200, r.maxWait());
  }

  @Test
  void firstFitLetsNarrowJobsDelayTheWideOne() throws IOException {
    // 1 runs 0-100 and 3 0-50 beside it; at 50, 4 takes 3's CPUs until 200; at 100 only 2 CPUs
    // are free, so 2 waits until 200 (200-300). Waits 0, 200, 0, 50.
    SimulationReport r = new Simulation(1, 4, FIRSTFIT).run(trace(WIDE_IN_THE_MIDDLE));
    assertEquals(250 / 4.0, r.meanWait(), EPS);
    assertEquals(200, r.maxWait());
  }

  @Test
  void easyBackfillStartsOnlyWhatDoesNotDelayTheReservedJob() throws IOException {
    // 1 runs 0-100; 2 is reserved for 100, when 1 ends; 3 ends by 50, before it, and starts at 0;
    // at 50, 4 (150 s) would hold 2 CPUs past 100 and so waits; 2 runs 100-200, 4 200-350.
    // Waits 0, 100, 0, 200: the wide job starts as under FIFO, the narrow short one at once.
    SimulationReport r = new Simulation(1, 4, EASY).run(trace(WIDE_IN_THE_MIDDLE));
    assertEquals(300 / 4.0, r.meanWait(), EPS);
    assertEquals(200, r.maxWait());
  }

  @Test
  void aJobEndingBeforeItsWalltimeBringsTheReservedStartForward() throws IOException {
    // 1 asks for 100 s but runs 40; 2 (4 CPUs) is reserved for 100 and starts at 40 when 1 ends;
    // 3 (2 CPUs, 120 s) would have held CPUs past 100 at 0 and waits until 2 ends at 140.
    String t =
        job(1, 0, 40, 2).replaceFirst(" 40 -1 1 1 1", " 100 -1 1 1 1")
            + job(2, 0, 100, 4)
            + job(3, 0, 120, 2);
    SimulationReport r = new Simulation(1, 4, EASY).run(trace(t));
    assertEquals((0 + 40 + 140) / 3.0, r.meanWait(), EPS);
  }

  /**
   * With every job asking for exactly its run time, EASY backfill keeps every start it reserves:
   * later jobs start only where they do not delay it, so no reserved job starts after the first
   * start reserved for it. Random traces of mixed widths on 8 nodes of 4 CPUs.
   */
  @Test
  void noBackfilledJobDelaysAReservedStart() throws IOException {
    for (long seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      StringBuilder t = new StringBuilder();
      long submit = 0;
      for (int n = 1; n <= 300; n++) {
        submit += random.nextInt(40);
        int width = random.nextInt(10) == 0 ? 17 + random.nextInt(16) : 1 + random.nextInt(6);
        t.append(job(n, submit, 1 + random.nextInt(600), width));
      }
      for (int depth : new int[] {1, 3}) {
        SimulationReport r =
            new Simulation(8, 4, Policy.BACKFILL.settings(PriorityWeights.DEFAULT, depth))
                .run(trace(t.toString()));
        assertEquals(300, r.jobs());
        assertTrue(r.reserved() > 0, "seed " + seed + ": some jobs were reserved");
        assertEquals(0, r.startedAfterReservation(), "seed " + seed + ", depth " + depth);
      }
    }
  }

  /**
   * Fair share on one node of 4 CPUs: user 1 runs a job first (0-100, all CPUs); at 100 both users
   * have a job waiting, user 1's submitted first. Without fair share it runs first; with it, user
   * 2, who has used nothing, goes first.
   */
  @Test
  void fairSharePutsTheUserWhoUsedLessFirst() throws IOException {
    String t =
        job(1, 0, 100, 4)
            + job(2, 10, 100, 4)
            + job(3, 20, 100, 4).replaceFirst(" -1 1 1 1 -1 1 ", " -1 1 2 2 -1 1 ");
    SimulationReport plain = new Simulation(1, 4, EASY).run(trace(t));
    // 2 starts at 100 (waits 90), 3 at 200 (waits 180)
    assertEquals((0 + 90 + 180) / 3.0, plain.meanWait(), EPS);
    SchedulerSettings fair =
        Policy.BACKFILL.settings(new PriorityWeights(0, 86_400, 0, false, 0, 0, 10_000), 1);
    SimulationReport shared = new Simulation(1, 4, fair).run(trace(t));
    // 3 starts at 100 (waits 80), 2 at 200 (waits 190)
    assertEquals((0 + 190 + 80) / 3.0, shared.meanWait(), EPS);
  }

  @Test
  void aJobSpansNodesAsWholeNodesAndARest() throws IOException {
    // Two nodes of 4 CPUs: 1 needs 6 (a whole node and 2 of the other) from 0 to 10; 2 needs 3
    // and fits only when 1 ends; short run times count as tau (10 s) in the slowdown.
    SimulationReport r = new Simulation(2, 4, FIFO).run(trace(job(1, 0, 10, 6) + job(2, 0, 5, 3)));
    assertEquals(5, r.meanWait(), EPS);
    assertEquals((1 + (10 + 5) / 10.0) / 2, r.meanBoundedSlowdown(), EPS);
    assertEquals((60 + 15) / (8.0 * 15), r.utilization(), EPS);
  }

  @Test
  void unknownRunsAndJobsLargerThanTheClusterAreCountedNotRun() throws IOException {
    SimulationReport r =
        new Simulation(1, 4, FIFO)
            .run(
                trace(
                    "; Version: 2.2\n;\n"
                        + job(1, 0, -1, 4)
                        + job(2, 0, 10, 0)
                        + job(3, 0, 10, 8)
                        + job(4, 5, 10, 4)));
    assertEquals(1, r.jobs());
    assertEquals(2, r.leftOut());
    assertEquals(1, r.tooLarge());
    assertEquals(0, r.meanWait(), EPS);
    assertTrue(r.lines().get(0).startsWith("jobs 1 (left out of the trace: 2, larger than"));
  }

  @Test
  void requestedProcessorsStandInWhereTheAllocatedAreUnknown() throws IOException {
    SwfTrace t = trace("7 0 -1 60 -1 -1 -1 3 120 -1 1 1 1 -1 1 -1 -1 -1\n");
    assertEquals(List.of(new SwfJob(7, 0, 60, 3, 120, 1, 1)), t.jobs());
  }

  @Test
  void aMalformedLineIsRefusedByNumber() {
    IllegalArgumentException short_ =
        assertThrows(IllegalArgumentException.class, () -> trace("; x\n1 0 -1 60\n"));
    assertEquals("line 2: 4 fields, a job has 18", short_.getMessage());
    IllegalArgumentException word =
        assertThrows(
            IllegalArgumentException.class, () -> trace(job(1, 0, 10, 1).replace(" 10 ", " ten ")));
    assertTrue(word.getMessage().startsWith("line 1: not a number"), word.getMessage());
  }

  @Test
  void everyCycleIsTimedAndPoliciesAreNamed() throws IOException {
    SimulationReport r = new Simulation(1, 1, FIFO).run(trace(job(1, 0, 10, 1) + job(2, 1, 10, 1)));
    // cycles at 0 (1 starts), 1 (2 waits) and 10 (2 starts)
    assertEquals(3, r.cycleNanos().size());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Policy.named("lottery"));
    assertEquals(
        "no scheduling policy 'lottery'; there is: [fifo, firstfit, backfill]", e.getMessage());
  }
}
