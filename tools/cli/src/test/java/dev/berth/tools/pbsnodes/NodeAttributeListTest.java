package dev.berth.tools.pbsnodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Gpu;
import dev.berth.proto.NodeStatus;
import dev.berth.tools.format.Attr;
import java.util.List;
import org.junit.jupiter.api.Test;

/** pbsnodes's names are core's: each attribute it shows is one of AttributeTable.NODE. */
class NodeAttributeListTest {
  @Test
  void everyNameButGpuStatusIsANodeAttributeOfCoresTable() {
    NodeStatus status =
        PbsnodesTest.N1.toBuilder()
            .setNode(
                PbsnodesTest.N1.getNode().toBuilder()
                    .setNote("bad disk")
                    .setGpus(1)
                    .addGpuDevices(Gpu.newBuilder().setIndex(0).setDevice("/dev/nvidia0")))
            .build();
    List<String> names = NodeAttributeList.of(status).stream().map(Attr::name).toList();
    assertEquals(
        List.of(
            "state", "np", "properties", "ntype", "jobs", "status", "note", "gpus", "gpu_status"),
        names);
    for (String name : names.subList(0, names.size() - 1)) {
      assertTrue(AttributeTable.NODE.find(name).isPresent(), name);
    }
    assertTrue(AttributeTable.NODE.find("gpu_status").isEmpty(), "only pbsnodes shows gpu_status");
  }
}
