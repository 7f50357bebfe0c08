package dev.berth.scheduler;

import static dev.berth.scheduler.Fixtures.GB;
import static dev.berth.scheduler.Fixtures.exclusive;
import static dev.berth.scheduler.Fixtures.gpuGroup;
import static dev.berth.scheduler.Fixtures.group;
import static dev.berth.scheduler.Fixtures.host;
import static dev.berth.scheduler.Fixtures.job;
import static dev.berth.scheduler.Fixtures.node;
import static dev.berth.scheduler.Fixtures.nodes;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Job;
import dev.berth.proto.ResourceRequest;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FeasibilityTest {

  private static Optional<String> why(Job job, NodeCapacity... nodes) {
    return Feasibility.whyImpossible(job, List.of(nodes));
  }

  private static final NodeCapacity N1 = node("n1", 4).build();
  private static final NodeCapacity N2 = node("n2", 4).build();

  @Test
  void feasibleJobHasNoReason() {
    assertEquals(Optional.empty(), why(job("1", group(2, 4)), N1, N2));
  }

  @Test
  void noNodes() {
    assertEquals(
        Optional.of("the cluster has no nodes (start a mom, or create nodes with qmgr)"),
        why(job("1", group(1, 1))));
  }

  @Test
  void tooManyNodes() {
    assertEquals(
        Optional.of("requests 3 nodes but the cluster has 2 nodes"),
        why(job("1", group(3, 1)), N1, N2));
    assertEquals(
        Optional.of("requests 2 nodes but the cluster has 1 node"), why(job("1", group(2, 1)), N1));
  }

  @Test
  void tooManyNodesCountsEveryGroup() {
    assertEquals(
        Optional.of("requests 3 nodes but the cluster has 2 nodes"),
        why(job("1", group(2, 1), group(1, 1)), N1, N2));
  }

  @Test
  void ppnAboveTheLargestNp() {
    assertEquals(
        Optional.of("requests ppn=8 but the largest node in the cluster has np=4"),
        why(job("1", group(1, 8)), N1, node("n2", 2).build()));
  }

  @Test
  void ncpusAboveTheLargestNp() {
    Job j = job("1", ResourceRequest.newBuilder().setNcpus(16));
    assertEquals(
        Optional.of("requests ppn=16 but the largest node in the cluster has np=4"), why(j, N1));
  }

  @Test
  void ppnIsJudgedAgainstTheMatchingNodesOnly() {
    assertEquals(
        Optional.of("requests ppn=4 but the largest node with properties [fast] has np=2"),
        why(
            job("1", group(1, 4, "fast")),
            node("big", 64).build(),
            node("f1", 2).props("fast").build()));
  }

  @Test
  void unknownProperty() {
    assertEquals(
        Optional.of("no node with properties [bigmem]"),
        why(job("1", group(1, 1, "bigmem")), N1, node("n2", 4).props("fast").build()));
  }

  @Test
  void unknownNameOrProperty() {
    assertEquals(
        Optional.of("no node named or with property 'nosuch'"),
        why(job("1", host("nosuch", 1)), N1, N2));
  }

  @Test
  void namedHostWithoutTheGroupsProperty() {
    assertEquals(
        Optional.of("no node named or with property 'n1' and properties [bigmem]"),
        why(job("1", host("n1", 1, "bigmem")), N1, node("n2", 4).props("bigmem").build()));
  }

  @Test
  void namedHostWithTooFewCpus() {
    assertEquals(
        Optional.of("requests ppn=8 but the largest node named or with property 'n2' has np=4"),
        why(job("1", host("n2", 8)), node("n1", 16).build(), N2));
  }

  @Test
  void fewerNodesWithThePropertyThanRequested() {
    assertEquals(
        Optional.of("requests 2 nodes with properties [fast] but the cluster has 1"),
        why(job("1", group(2, 1, "fast")), node("n1", 4).props("fast").build(), N2));
  }

  @Test
  void tooManyGpus() {
    assertEquals(
        Optional.of("requests gpus=2 per node but nodes in the cluster have at most 1"),
        why(job("1", gpuGroup(1, 1, 2)), node("n1", 4).gpus(1).build(), N2));
  }

  @Test
  void gpusOnAClusterWithoutGpus() {
    assertEquals(
        Optional.of("requests gpus=1 per node but nodes in the cluster have at most 0"),
        why(job("1", gpuGroup(1, 1, 1)), N1));
  }

  @Test
  void tooMuchMemoryPerNodeFromPmem() {
    Job j = job("1", nodes(group(1, 4)).setPmem(16 * GB));
    assertEquals(
        Optional.of("needs 64gb of memory per node but the largest node in the cluster has 32gb"),
        why(j, node("n1", 4).mem(32 * GB).build(), node("n2", 4).mem(8 * GB).build()));
  }

  @Test
  void tooMuchMemoryFromMem() {
    Job j = job("1", nodes(group(1, 1)).setMem(250 * GB));
    assertEquals(
        Optional.of(
            "needs 250gb of memory per node but the largest node in the cluster has 1536mb"),
        why(j, node("n1", 4).mem(1536L << 20).build()));
  }

  @Test
  void nodesThatHaveNotReportedMemoryDoNotLimitIt() {
    Job j = job("1", nodes(group(1, 1)).setMem(1024 * GB));
    assertEquals(Optional.empty(), why(j, node("n1", 4).mem(8 * GB).build(), N2));
  }

  @Test
  void downOfflineAndBusyNodesStillCount() {
    NodeCapacity down = node("n1", 4).mem(8 * GB).gpus(1).unusable().build();
    NodeCapacity full =
        node("n2", 4).free().mem(8 * GB).memFree(0).gpus(1).gpusFree(0).idle(false).build();
    Job j = job("1", nodes(gpuGroup(2, 4, 1)).setPmem(GB));
    assertEquals(Optional.empty(), why(j, down, full));
    assertEquals(Optional.empty(), why(exclusive("2", gpuGroup(2, 4, 1)), down, full));
  }

  @Test
  void exclusiveJobIsFeasibleOnABusyCluster() {
    NodeCapacity busy = node("n1", 4).free(3).idle(false).build();
    assertEquals(Optional.empty(), why(exclusive("1", group(1, 4)), busy));
  }

  @Test
  void eachGroupFitsAloneButNotTogether() {
    // nodes=1:ppn=4+1:ppn=4 on nodes with np 4 and 2
    assertEquals(
        Optional.of("no combination of the nodes of the cluster satisfies the request"),
        why(job("1", group(1, 4), group(1, 4)), N1, node("n2", 2).build()));
  }

  @Test
  void cpusAndMemoryOnDifferentNodes() {
    // one node has the CPUs, the other the memory
    Job j = job("1", nodes(group(1, 8)).setMem(64 * GB));
    assertEquals(
        Optional.of("no combination of the nodes of the cluster satisfies the request"),
        why(j, node("cpu", 8).mem(8 * GB).build(), node("mem", 2).mem(128 * GB).build()));
  }

  @Test
  void onlyTheNodesThatCanRunTheJobCount() {
    Job job = job("1", group(2, 1)).toBuilder().setCgroupEnable(true).build();
    assertEquals(
        Optional.of("requests 2 nodes but the cluster (its nodes that make cgroups) has 1 node"),
        why(job, node("n1", 2).noCgroups().build(), node("n2", 2).build()));
    assertEquals(Optional.empty(), why(job, node("n1", 2).build(), node("n2", 2).build()));
  }
}
