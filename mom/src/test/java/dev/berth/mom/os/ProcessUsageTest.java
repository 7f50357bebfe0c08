package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Usage read from the real /proc, for this test's own session. */
class ProcessUsageTest {
  @Test
  void theProcessesOfASessionAreSummed() {
    long self = ProcessHandle.current().pid();
    // at least two seconds of this JVM's CPU time, so that whole seconds can be compared
    long until = System.nanoTime() + 2_500_000_000L;
    while (ProcessHandle.current().info().totalCpuDuration().orElseThrow().toSeconds() < 2
        && System.nanoTime() < until) {
      Math.sqrt(System.nanoTime());
    }
    long cpu = ProcessHandle.current().info().totalCpuDuration().orElseThrow().toSeconds();
    ProcessUsage.Sample s = new ProcessUsage().of(Set.of(ProcessFacts.session(self)), List.of());
    assertTrue(cpu >= 2, "the JVM burned CPU: " + cpu);
    assertTrue(s.cpuSeconds() >= cpu, "this JVM's CPU time is in its session's: " + s);
    assertTrue(s.residentBytes() >= Runtime.getRuntime().totalMemory() / 4, "resident: " + s);
    assertTrue(s.virtualBytes() > s.residentBytes(), "virtual: " + s);
  }

  @Test
  void noSessionAndNoCgroupIsNothing() {
    assertEquals(
        ProcessUsage.Sample.NONE, new ProcessUsage().of(Set.of(), List.of()), "nothing counted");
  }
}
