package dev.berth.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Small traces whose schedules are worked out by hand in the comments. */
class SimulationTest {
  private static final double EPS = 1e-9;

  /** An SWF line: number, submit, run time, allocated processors; the rest unknown. */
  private static String job(long number, long submit, long runtime, int processors) {
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
        + runtime
        + " -1 1 1 1 -1 1 -1 -1 -1\n";
  }

  private static SwfTrace trace(String text) throws IOException {
    return SwfTrace.parse(new StringReader(text));
  }

  @Test
  void jobsWaitInOrderForTheCpusTheyNeed() throws IOException {
    // One node of 4 CPUs. t=0: 1 takes all four until 100. 2 (t=10) and 3 (t=20) wait; at 100,
    // 2 takes all four until 150 and 3 (2 CPUs) cannot start beside it; at 150, 3 runs to 180.
    SimulationReport r =
        new Simulation(1, 4, Policy.FIFO)
            .run(trace(job(1, 0, 100, 4) + job(2, 10, 50, 4) + job(3, 20, 30, 2)));
    assertEquals(3, r.jobs());
    assertEquals((0 + 90 + 130) / 3.0, r.meanWait(), EPS);
    assertEquals(130, r.maxWait());
    assertEquals((400 + 200 + 60) / (4.0 * 180), r.utilization(), EPS);
    assertEquals((1 + 140 / 50.0 + 160 / 30.0) / 3, r.meanBoundedSlowdown(), EPS);
  }

  @Test
  void aNarrowJobPassesAWideOneThatDoesNotFit() throws IOException {
    // One node of 4 CPUs, all three submitted at 0: 1 (2 CPUs) starts; 2 (4) does not fit; 3 (2)
    // does, and runs to 50; 2 starts when 1 ends at 100 and runs to 200. FIFO lets 3 pass 2.
    SimulationReport r =
        new Simulation(1, 4, Policy.FIFO)
            .run(trace(job(1, 0, 100, 2) + job(2, 0, 100, 4) + job(3, 0, 50, 2)));
    assertEquals(100 / 3.0, r.meanWait(), EPS);
    assertEquals(100, r.maxWait());
    assertEquals(700 / 800.0, r.utilization(), EPS);
    assertEquals((1 + 2 + 1) / 3.0, r.meanBoundedSlowdown(), EPS);
  }

  @Test
  void aJobSpansNodesAsWholeNodesAndARest() throws IOException {
    // Two nodes of 4 CPUs: 1 needs 6 (a whole node and 2 of the other) from 0 to 10; 2 needs 3
    // and fits only when 1 ends; short run times count as tau (10 s) in the slowdown.
    SimulationReport r =
        new Simulation(2, 4, Policy.FIFO).run(trace(job(1, 0, 10, 6) + job(2, 0, 5, 3)));
    assertEquals(5, r.meanWait(), EPS);
    assertEquals((1 + (10 + 5) / 10.0) / 2, r.meanBoundedSlowdown(), EPS);
    assertEquals((60 + 15) / (8.0 * 15), r.utilization(), EPS);
  }

  @Test
  void unknownRunsAndJobsLargerThanTheClusterAreCountedNotRun() throws IOException {
    SimulationReport r =
        new Simulation(1, 4, Policy.FIFO)
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
    assertEquals(List.of(new SwfJob(7, 0, 60, 3, 120)), t.jobs());
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
    SimulationReport r =
        new Simulation(1, 1, Policy.named("fifo")).run(trace(job(1, 0, 10, 1) + job(2, 1, 10, 1)));
    // cycles at 0 (1 starts), 1 (2 waits) and 10 (2 starts)
    assertEquals(3, r.cycleNanos().size());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Policy.named("lottery"));
    assertEquals("no scheduling policy 'lottery'; there is: [fifo]", e.getMessage());
  }
}
