package dev.berth.server.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeTelemetryTest {
  private static final Job JOB =
      Job.newBuilder()
          .setId("7.srv")
          .setState(JobState.RUNNING)
          .setStartTime(1000)
          .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n2").addCpus(0))
          .build();

  private static ResourcesUsed used(long cput, long mem) {
    return ResourcesUsed.newBuilder().setCput(cput).setMem(mem).setVmem(2 * mem).build();
  }

  @Test
  void aRunningJobsUsageIsItsNodesLastReportsSummedWithItsWalltimeSoFar() {
    NodeTelemetry t = new NodeTelemetry();
    assertTrue(t.soFar(JOB, 1100, node -> true).isEmpty(), "no node reported yet");
    t.recordUsage("n1", Map.of("7.srv", used(10, 100)), id -> true);
    t.recordUsage("n2", Map.of("7.srv", used(5, 50)), id -> true);
    t.recordUsage("n1", Map.of("7.srv", used(12, 120)), id -> true); // the last report counts
    ResourcesUsed u = t.soFar(JOB, 1100, node -> true).orElseThrow();
    assertEquals(17, u.getCput());
    assertEquals(170, u.getMem());
    assertEquals(340, u.getVmem());
    assertEquals(100, u.getWalltime());
    Job suspended = JOB.toBuilder().setSuspendedSeconds(30).setSuspendedAt(1090).build();
    assertEquals(
        60,
        t.soFar(suspended, 1100, node -> true).orElseThrow().getWalltime(),
        "frozen time is not");
    assertEquals(
        12, t.soFar(JOB, 1100, node -> !node.equals("n2")).orElseThrow().getCput(), "n2 is down");
  }

  @Test
  void aMomIsHeardOnlyForJobsThatRunOnItsNode() {
    NodeTelemetry t = new NodeTelemetry();
    t.recordUsage("n1", Map.of("7.srv", used(1_000_000, 1)), id -> !id.equals("7.srv"));
    assertTrue(
        t.soFar(JOB, 1100, node -> true).isEmpty(), "the state says 7.srv does not run on n1");
  }
}
