package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeFileTest {
  @Test
  void oneLinePerSlotInExecHostOrder() {
    Job job =
        Job.newBuilder()
            .addExecNodes(NodeAllocation.newBuilder().setNode("n2").addCpus(4).addCpus(5))
            .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0))
            .addExecNodes(
                NodeAllocation.newBuilder().setNode("n3").addCpus(1).addCpus(2).addCpus(3))
            .build();
    assertEquals(List.of("n2", "n2", "n1", "n3", "n3", "n3"), NodeFile.lines(job));
  }

  @Test
  void noExecNodesNoLines() {
    assertEquals(List.of(), NodeFile.lines(Job.getDefaultInstance()));
  }
}
