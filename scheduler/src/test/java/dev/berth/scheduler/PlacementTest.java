package dev.berth.scheduler;

import static dev.berth.scheduler.Fixtures.GB;
import static dev.berth.scheduler.Fixtures.alloc;
import static dev.berth.scheduler.Fixtures.exclusive;
import static dev.berth.scheduler.Fixtures.gpuGroup;
import static dev.berth.scheduler.Fixtures.group;
import static dev.berth.scheduler.Fixtures.host;
import static dev.berth.scheduler.Fixtures.job;
import static dev.berth.scheduler.Fixtures.node;
import static dev.berth.scheduler.Fixtures.nodes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourceRequest;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlacementTest {

  private static Optional<List<NodeAllocation>> place(Job job, NodeCapacity... nodes) {
    return Placement.place(job, List.of(nodes));
  }

  private static List<NodeAllocation> placed(Job job, NodeCapacity... nodes) {
    Optional<List<NodeAllocation>> result = place(job, nodes);
    assertTrue(result.isPresent(), "expected " + job.getId() + " to be placed");
    return result.get();
  }

  // --- groups() and memoryOnNode() ---

  @Test
  void groupsAreTheNodesRequest() {
    ResourceRequest r = nodes(group(2, 4), host("n1", 1)).build();
    assertEquals(List.of(group(2, 4), host("n1", 1)), Placement.groups(r));
  }

  @ParameterizedTest(name = "ncpus={0} procs={1} is 1:ppn={2}")
  @CsvSource({"0, 0, 1", "4, 0, 4", "0, 3, 3", "2, 6, 6", "8, 2, 8"})
  void withoutNodesOneNodeWithNcpusOrProcs(int ncpus, int procs, int ppn) {
    ResourceRequest r = ResourceRequest.newBuilder().setNcpus(ncpus).setProcs(procs).build();
    assertEquals(List.of(group(1, ppn)), Placement.groups(r));
  }

  @Test
  void nodesWinOverNcpus() {
    ResourceRequest r = nodes(group(2, 2)).setNcpus(16).build();
    assertEquals(List.of(group(2, 2)), Placement.groups(r));
  }

  @Test
  void memoryOnNodeIsPmemTimesPpn() {
    // corpus 09: ppn=4, pmem=16gb is 64gb per node
    ResourceRequest r = nodes(group(1, 4)).setPmem(16 * GB).build();
    assertEquals(64 * GB, Placement.memoryOnNode(r, 4));
    assertEquals(16 * GB, Placement.memoryOnNode(r, 1));
  }

  @Test
  void pmemWinsOverMem() {
    ResourceRequest r = nodes(group(2, 2)).setPmem(GB).setMem(100 * GB).build();
    assertEquals(2 * GB, Placement.memoryOnNode(r, 2));
  }

  @Test
  void memIsSharedAcrossTheJobsProcesses() {
    // 8gb over 2 nodes × 4 processes: 4gb on a node with 4 of them
    ResourceRequest r = nodes(group(2, 4)).setMem(8 * GB).build();
    assertEquals(4 * GB, Placement.memoryOnNode(r, 4));
  }

  @Test
  void memSharedAcrossUnevenGroupsRoundsUp() {
    // 10 bytes over 3+1 processes: the 3-process node needs ceil(30/4) = 8
    ResourceRequest r = nodes(group(1, 3), group(1, 1)).setMem(10).build();
    assertEquals(8, Placement.memoryOnNode(r, 3));
    assertEquals(3, Placement.memoryOnNode(r, 1));
  }

  @Test
  void memWithoutNodesIsAllOnTheOneNode() {
    ResourceRequest r = ResourceRequest.newBuilder().setNcpus(4).setMem(6 * GB).build();
    assertEquals(6 * GB, Placement.memoryOnNode(r, 4));
  }

  @Test
  void noMemoryRequestNeedsNothing() {
    assertEquals(0, Placement.memoryOnNode(nodes(group(1, 8)).build(), 8));
  }

  // --- place() ---

  @Test
  void firstFitInNodeOrder() {
    List<NodeAllocation> a =
        placed(job("1", group(1, 2)), node("n1", 4).build(), node("n2", 4).build());
    assertEquals(List.of(alloc("n1", 0, 1)), a);
  }

  @Test
  void nodeOrderIsTheListsNotTheNames() {
    List<NodeAllocation> a =
        placed(job("1", group(1, 1)), node("zz", 1).build(), node("aa", 1).build());
    assertEquals("zz", a.get(0).getNode());
  }

  @Test
  void skipsNodesWithTooFewFreeCpus() {
    List<NodeAllocation> a =
        placed(job("1", group(1, 2)), node("n1", 4).free(3).build(), node("n2", 4).build());
    assertEquals(List.of(alloc("n2", 0, 1)), a);
  }

  @Test
  void takesTheLowestFreeCpuIds() {
    List<NodeAllocation> a = placed(job("1", group(1, 2)), node("n1", 8).free(1, 3, 5, 6).build());
    assertEquals(List.of(alloc("n1", 1, 3)), a);
  }

  @Test
  void cpuIdsComeOutAscendingWhateverOrderTheMomOffers() {
    // a mom started with --cpus 4-7,0-3 offers its ids in that order
    NodeCapacity n = node("n1", 8).cpus(4, 5, 6, 7, 0, 1, 2, 3).build();
    assertEquals(List.of(alloc("n1", 0, 1, 2)), placed(job("1", group(1, 3)), n));
    NodeCapacity partly = node("n1", 8).cpus(7, 6, 5, 4).free(6, 4, 7).build();
    assertEquals(List.of(alloc("n1", 4, 6)), placed(job("2", group(1, 2)), partly));
  }

  @Test
  void aJobNeverGetsTheSameNodeTwice() {
    List<NodeAllocation> a =
        placed(job("1", group(2, 1)), node("n1", 8).build(), node("n2", 8).build());
    assertEquals(List.of(alloc("n1", 0), alloc("n2", 0)), a);
  }

  @Test
  void moreNodesThanThereAreDoesNotFitEvenWithSpareCpus() {
    assertTrue(
        place(job("1", group(3, 1)), node("n1", 64).build(), node("n2", 64).build()).isEmpty());
  }

  @Test
  void groupsAreDistinctNodesToo() {
    // nodes=1:ppn=4+1:ppn=1: the second group may not use what is left on n1
    List<NodeAllocation> a =
        placed(job("1", group(1, 4), group(1, 1)), node("n1", 8).build(), node("n2", 2).build());
    assertEquals(List.of(alloc("n1", 0, 1, 2, 3), alloc("n2", 0)), a);
  }

  @Test
  void allocationsFollowTheGroupOrderSoTheFirstIsMotherSuperior() {
    List<NodeAllocation> a =
        placed(
            job("1", group(1, 1, "small"), group(1, 4, "big")),
            node("b1", 8).props("big").build(),
            node("s1", 1).props("small").build());
    assertEquals(List.of(alloc("s1", 0), alloc("b1", 0, 1, 2, 3)), a);
  }

  @Test
  void namedHostIsThatNodeOnly() {
    List<NodeAllocation> a =
        placed(job("1", host("n2", 2)), node("n1", 4).build(), node("n2", 4).build());
    assertEquals(List.of(alloc("n2", 0, 1)), a);
  }

  @Test
  void namedHostThatIsDownDoesNotFallBackToOtherNodes() {
    assertTrue(
        place(job("1", host("n2", 1)), node("n1", 4).build(), node("n2", 4).unusable().build())
            .isEmpty());
  }

  @Test
  void namedHostThatIsFullDoesNotFit() {
    assertTrue(
        place(job("1", host("n2", 2)), node("n1", 4).build(), node("n2", 4).free(0).build())
            .isEmpty());
  }

  @Test
  void namedHostMustHaveTheGroupsProperties() {
    NodeCapacity plain = node("n1", 4).build();
    NodeCapacity big = node("n1", 4).props("bigmem").build();
    assertTrue(
        place(job("1", host("n1", 1, "bigmem")), plain, node("n2", 4).props("bigmem").build())
            .isEmpty());
    assertEquals(List.of(alloc("n1", 0)), placed(job("1", host("n1", 1, "bigmem")), big));
  }

  @Test
  void nameThatIsNoNodeIsAProperty() {
    List<NodeAllocation> a =
        placed(
            job("1", host("gpuq", 1)),
            node("n1", 4).props("cpuq").build(),
            node("n2", 4).props("gpuq").build());
    assertEquals("n2", a.get(0).getNode());
  }

  @Test
  void nameThatIsNeitherNodeNorPropertyDoesNotFit() {
    assertTrue(place(job("1", host("nosuch", 1)), node("n1", 4).props("fast").build()).isEmpty());
  }

  @Test
  void nameUsedAsPropertyMustComeWithTheOtherProperties() {
    List<NodeAllocation> a =
        placed(
            job("1", host("gpuq", 1, "ib")),
            node("n1", 4).props("gpuq").build(),
            node("n2", 4).props("gpuq", "ib").build());
    assertEquals("n2", a.get(0).getNode());
  }

  @Test
  void nodesNeedAllTheGroupsProperties() {
    List<NodeAllocation> a =
        placed(
            job("1", group(1, 1, "fast", "ib")),
            node("n1", 4).props("fast").build(),
            node("n2", 4).props("ib").build(),
            node("n3", 4).props("ib", "fast", "other").build());
    assertEquals("n3", a.get(0).getNode());
  }

  @Test
  void propertiesSpreadOverGroups() {
    // corpus 20: nodes=1:node01:ppn=20+1:node03:ppn=24
    List<NodeAllocation> a =
        placed(
            job("1", group(1, 20, "node01"), group(1, 24, "node03")),
            node("node03", 24).props("node03").build(),
            node("node01", 20).props("node01").build());
    assertEquals("node01", a.get(0).getNode());
    assertEquals(20, a.get(0).getCpusCount());
    assertEquals("node03", a.get(1).getNode());
    assertEquals(24, a.get(1).getCpusCount());
  }

  @Test
  void gpusMustBeFree() {
    List<NodeAllocation> a =
        placed(
            job("1", gpuGroup(1, 1, 2)),
            node("n1", 4).gpus(1).build(),
            node("n2", 4).gpus(2).gpusFree(1).build(),
            node("n3", 4).gpus(4).gpusFree(2).build());
    assertEquals(List.of(alloc("n3", List.of(0), 0, 2)), a);
  }

  @Test
  void noGpusRequestedFitsNodesWithoutGpus() {
    assertEquals(
        List.of(alloc("n1", List.of(0), 0, 0)),
        placed(job("1", group(1, 1)), node("n1", 1).build()));
  }

  @Test
  void pmemTimesPpnMustFitFreeMemory() {
    Job j = job("1", nodes(group(1, 4)).setPmem(2 * GB));
    List<NodeAllocation> a =
        placed(
            j,
            node("n1", 8).mem(4 * GB).build(),
            node("n2", 8).mem(16 * GB).memFree(7 * GB).build(),
            node("n3", 8).mem(16 * GB).memFree(8 * GB).build());
    assertEquals(List.of(alloc("n3", List.of(0, 1, 2, 3), 8 * GB, 0)), a);
  }

  @Test
  void sharedMemIsReservedPerNode() {
    Job j = job("1", nodes(group(2, 2)).setMem(8 * GB));
    List<NodeAllocation> a =
        placed(
            j,
            node("n1", 2).mem(3 * GB).build(),
            node("n2", 2).mem(4 * GB).build(),
            node("n3", 2).mem(8 * GB).build());
    assertEquals(
        List.of(alloc("n2", List.of(0, 1), 4 * GB, 0), alloc("n3", List.of(0, 1), 4 * GB, 0)), a);
  }

  @Test
  void physmemZeroIsUnconstrained() {
    Job j = job("1", nodes(group(1, 1)).setMem(1024 * GB));
    assertEquals(List.of(alloc("n1", List.of(0), 1024 * GB, 0)), placed(j, node("n1", 1).build()));
  }

  @Test
  void noMemoryRequestStillNeedsNoFreeMemory() {
    NodeCapacity n = node("n1", 2).mem(8 * GB).memFree(0).build();
    assertEquals(List.of(alloc("n1", 0)), placed(job("1", group(1, 1)), n));
  }

  @Test
  void unusableNodesAreSkipped() {
    List<NodeAllocation> a =
        placed(job("1", group(1, 1)), node("n1", 4).unusable().build(), node("n2", 4).build());
    assertEquals(List.of(alloc("n2", 0)), a);
  }

  @Test
  void nothingFitsOnNoNodes() {
    assertTrue(place(job("1", group(1, 1))).isEmpty());
  }

  @Test
  void oneGroupNotFittingFailsTheWholeJob() {
    assertTrue(
        place(job("1", group(1, 1), group(1, 8)), node("n1", 4).build(), node("n2", 4).build())
            .isEmpty());
  }

  @Test
  void exclusiveJobTakesAnIdleNodeAndAllItsCpus() {
    List<NodeAllocation> a =
        placed(
            exclusive("1", group(1, 1)),
            node("n1", 4).free(1, 2, 3).build(),
            node("n2", 4).build());
    assertEquals(List.of(alloc("n2", 0, 1, 2, 3)), a);
  }

  @Test
  void exclusiveJobSkipsNodesThatAreNotIdleEvenWithFreeCpus() {
    // a job holding only memory or GPUs still makes the node not idle
    NodeCapacity held = node("n1", 4).idle(false).build();
    assertTrue(place(exclusive("1", group(1, 1)), held).isEmpty());
  }

  @Test
  void exclusiveJobWithSeveralNodes() {
    List<NodeAllocation> a =
        placed(
            exclusive("1", group(2, 1)),
            node("n1", 2).build(),
            node("n2", 2).free(0).build(),
            node("n3", 3).build());
    assertEquals(List.of(alloc("n1", 0, 1), alloc("n3", 0, 1, 2)), a);
  }

  @Test
  void exclusiveJobStillNeedsPpnCpus() {
    assertTrue(place(exclusive("1", group(1, 8)), node("n1", 4).build()).isEmpty());
  }

  @Test
  void exclusiveJobReservesOnlyItsRequestedMemoryAndGpus() {
    Job j =
        job("1", nodes(gpuGroup(1, 1, 1)).setPmem(GB)).toBuilder().setNodeExclusive(true).build();
    List<NodeAllocation> a = placed(j, node("n1", 2).mem(8 * GB).gpus(2).build());
    assertEquals(List.of(alloc("n1", List.of(0, 1), GB, 1)), a);
  }

  @Test
  void resultIsImmutable() {
    List<NodeAllocation> a = placed(job("1", group(1, 1)), node("n1", 1).build());
    assertThrows(UnsupportedOperationException.class, () -> a.add(alloc("n2", 0)));
  }

  @Test
  void bigGroupsChooseFirstButAllocationsKeepRequestOrder() {
    // n1 has 4 CPUs, n2 one: nodes=1:ppn=1+1:ppn=4 fits only if the ppn=4 group takes n1.
    Job job = job("1.s", group(1, 1), group(1, 4));
    List<NodeAllocation> a = place(job, node("n1", 4).build(), node("n2", 1).build()).orElseThrow();
    assertEquals("n2", a.get(0).getNode(), "the first group still comes first (mother superior)");
    assertEquals(List.of(0), a.get(0).getCpusList());
    assertEquals("n1", a.get(1).getNode());
    assertEquals(List.of(0, 1, 2, 3), a.get(1).getCpusList());
  }

  // --- which jobs a node's mom can run ---

  @Test
  void aJobWithCgroupsGoesOnlyWhereTheMomMakesThem() {
    Job job = job("1", group(1, 1)).toBuilder().setCgroupEnable(true).build();
    NodeCapacity plain = node("n1", 2).noCgroups().build();
    NodeCapacity isolated = node("n2", 2).build();
    assertEquals("n2", placed(job, plain, isolated).get(0).getNode());
    assertTrue(place(job, plain).isEmpty());
    Job without = job.toBuilder().setCgroupEnable(false).build();
    assertEquals("n1", placed(without, plain, isolated).get(0).getNode());
  }

  @Test
  void rootsJobGoesOnlyWhereTheMomRunsRootJobs() {
    Job root = job("1", group(2, 1)).toBuilder().setEuser("root").build();
    NodeCapacity n1 = node("n1", 2).noRootJobs().build();
    NodeCapacity n2 = node("n2", 2).build();
    NodeCapacity n3 = node("n3", 2).build();
    assertEquals(
        List.of("n2", "n3"),
        placed(root, n1, n2, n3).stream().map(NodeAllocation::getNode).toList());
    assertTrue(place(root, n1, n2).isEmpty());
  }
}
