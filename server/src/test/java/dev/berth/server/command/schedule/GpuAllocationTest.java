package dev.berth.server.command.schedule;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Gpu;
import dev.berth.proto.JobDispatched;
import dev.berth.proto.Manage;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.IllegalTransitionException;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** GPUs with ids: n1's mom found 3, n2 has none; each GPU goes to one running job at a time. */
class GpuAllocationTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    d.hello(withGpus(Driver.node("n1", 4), 3));
  }

  static Node withGpus(Node node, int count) {
    Node.Builder n = node.toBuilder();
    for (int i = 0; i < count; i++) {
      n.addGpuDevices(
          Gpu.newBuilder().setIndex(i).setDevice("/dev/nvidia" + i).setMajor(195).setMinor(i));
    }
    return n.build();
  }

  private String runs(String nodes) {
    String id = d.submit(ALICE, resource("nodes", nodes));
    assertEquals(List.of(id), d.schedule());
    return id;
  }

  private List<Integer> gpuIds(String id) {
    return d.job(id).getExecNodes(0).getGpuIdsList();
  }

  @Test
  void theMomsGpusAreTheNodesGpus() {
    Node n1 = d.state.node("n1").orElseThrow();
    assertEquals(3, n1.getGpus());
    assertEquals(3, n1.getGpuDevicesCount());
    assertEquals(0, d.state.node("n2").orElseThrow().getGpus());
  }

  @Test
  void jobsGetDistinctGpusLowestFirstAndAFreedGpuIsGivenAgain() {
    String a = runs("1:ppn=1:gpus=1");
    String b = runs("1:ppn=1:gpus=2");
    assertEquals(List.of(0), gpuIds(a));
    assertEquals(List.of(1, 2), gpuIds(b));
    assertEquals(Map.of(0, a, 1, b, 2, b), d.state.usage("n1").gpuJobs());
    String c = d.submit(BOB, resource("nodes", "1:ppn=1:gpus=1"));
    assertEquals(List.of(), d.schedule(), "every GPU is held");
    d.runToEnd(a, 0);
    assertEquals(List.of(c), d.schedule());
    assertEquals(List.of(0), gpuIds(c));
  }

  @Test
  void aJobWithoutGpusHoldsNone() {
    String id = runs("1:ppn=1");
    assertEquals(List.of(), gpuIds(id));
    assertEquals(Map.of(), d.state.usage(d.motherSuperior(id)).gpuJobs());
  }

  @Test
  void replayAndSnapshotKeepWhoHoldsWhichGpu() {
    String a = runs("1:ppn=1:gpus=2");
    String b = runs("1:ppn=1:gpus=1");
    ClusterState replayed = ClusterState.EMPTY;
    for (Event e : d.journal) {
      replayed = StateMachine.apply(replayed, e);
    }
    assertEquals(d.state, replayed);
    ClusterState restored =
        StateMachine.restore(ClusterState.EMPTY, Snapshots.image(d.state), d.state.lastSeq());
    assertEquals(d.state.usage("n1"), restored.usage("n1"));
    assertEquals(Map.of(0, a, 1, a, 2, b), replayed.usage("n1").gpuJobs());
  }

  @Test
  void theStateRefusesAGpuHeldTwice() {
    String a = runs("1:ppn=1:gpus=1");
    String b = d.submit(BOB, resource("nodes", "1:ppn=1"));
    Event forged =
        Event.newBuilder()
            .setSeq(d.state.lastSeq() + 1)
            .setJobDispatched(
                JobDispatched.newBuilder()
                    .setJobId(b)
                    .addExecNodes(
                        NodeAllocation.newBuilder()
                            .setNode("n1")
                            .addCpus(3)
                            .setGpus(1)
                            .addGpuIds(0)))
            .build();
    IllegalTransitionException e =
        assertThrows(IllegalTransitionException.class, () -> StateMachine.apply(d.state, forged));
    assertTrue(e.getMessage().endsWith("gpu 0 of n1 is held by " + a + ", not free for " + b));
  }

  @Test
  void anOperatorCannotMiscountTheGpusAMomFound() {
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT, Manage.Command.SET, Manage.ObjectType.NODE, List.of("n1"), attr("gpus", "8")),
        "gpus of node n1 are the 3 GPUs its mom found");
    d.qmgr(ROOT, Manage.Command.SET, Manage.ObjectType.NODE, List.of("n2"), attr("gpus", "2"));
    assertEquals(2, d.state.node("n2").orElseThrow().getGpus(), "n2's mom found none");
    d.hello("n2", 4);
    assertEquals(2, d.state.node("n2").orElseThrow().getGpus(), "and a hello keeps the count");
    d.hello(withGpus(Driver.node("n2", 4), 1));
    assertEquals(1, d.state.node("n2").orElseThrow().getGpus(), "until its mom finds GPUs");
  }

  @Test
  void aMalformedGpuListIsNotTaken() {
    Node twice =
        withGpus(Driver.node("n2", 4), 2).toBuilder()
            .setGpuDevices(1, Gpu.newBuilder().setIndex(1).setMajor(195).setMinor(0))
            .build();
    d.hello(twice);
    assertEquals(0, d.state.node("n2").orElseThrow().getGpus(), "one device twice");
    Node misnumbered =
        withGpus(Driver.node("n2", 4), 2).toBuilder()
            .setGpuDevices(1, Gpu.newBuilder().setIndex(5).setMajor(195).setMinor(1))
            .build();
    d.hello(misnumbered);
    assertEquals(0, d.state.node("n2").orElseThrow().getGpuDevicesCount());
  }

  @Test
  void gpusAsAJobResourceAreGpusOnEachOfItsNodes() {
    String id = d.submit(ALICE, resource("gpus", "2"));
    assertEquals(List.of(id), d.schedule());
    assertEquals("n1", d.motherSuperior(id), "only n1 has GPUs");
    assertEquals(List.of(0, 1), gpuIds(id));
    assertEquals("2", d.job(id).getResources().getValuesOrThrow("gpus"));
  }

  @Test
  void moreGpusThanAnyNodeHasAreRefusedAtSubmission() {
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> d.submit(ALICE, resource("nodes", "1:ppn=1:gpus=4")),
        "job can never run",
        "gpus=4");
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> d.submit(ALICE, resource("nodes", "2:ppn=1"), resource("gpus", "1")),
        "job can never run");
    refused(
        Error.Code.UNKNOWN_RESOURCE,
        () -> d.submit(ALICE, resource("ngpus", "1")),
        "-l gpus=G or -l nodes=N:gpus=G");
  }
}
