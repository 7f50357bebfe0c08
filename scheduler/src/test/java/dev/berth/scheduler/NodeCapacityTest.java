package dev.berth.scheduler;

import static dev.berth.scheduler.Fixtures.GB;
import static dev.berth.scheduler.Fixtures.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.proto.NodeAllocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodeCapacityTest {

  @Test
  void emptyFreesEverythingAndMakesTheNodeUsableAndIdle() {
    NodeCapacity busy =
        node("n1", 4)
            .props("fast")
            .free(3)
            .mem(16 * GB)
            .memFree(GB)
            .gpus(2)
            .gpusFree(0)
            .unusable()
            .idle(false)
            .build();
    assertEquals(
        new NodeCapacity(
            "n1",
            Set.of("fast"),
            List.of(0, 1, 2, 3),
            List.of(0, 1, 2, 3),
            16 * GB,
            16 * GB,
            2,
            2,
            true,
            true,
            Hosting.ANY),
        busy.empty());
  }

  @Test
  void emptyKeepsAnUnreportedMemoryUnreported() {
    NodeCapacity n = node("n1", 2).build().empty();
    assertEquals(0, n.physmem());
    assertEquals(0, n.memFree());
  }

  @Test
  void npIsTheNumberOfCpuIds() {
    assertEquals(3, node("n1", 8).cpus(2, 4, 6).build().np());
    assertEquals(3, node("n1", 8).cpus(2, 4, 6).free().build().np());
  }

  @Test
  void collectionsAreCopiedAndImmutable() {
    Set<String> props = new HashSet<>(Set.of("a"));
    List<Integer> cpus = new ArrayList<>(List.of(0, 1));
    List<Integer> free = new ArrayList<>(List.of(1));
    NodeCapacity n = new NodeCapacity("n", props, cpus, free, 0, 0, 0, 0, true, false, Hosting.ANY);
    props.add("b");
    cpus.add(2);
    free.add(0);
    assertEquals(Set.of("a"), n.properties());
    assertEquals(List.of(0, 1), n.cpuIds());
    assertEquals(List.of(1), n.freeCpus());
    assertThrows(UnsupportedOperationException.class, () -> n.freeCpus().add(5));
  }

  @Test
  void runDecisionCopiesItsAllocations() {
    List<NodeAllocation> allocations = new ArrayList<>();
    allocations.add(NodeAllocation.newBuilder().setNode("n1").build());
    RunDecision d = new RunDecision("1.s", allocations);
    allocations.clear();
    assertEquals(1, d.allocations().size());
    assertThrows(UnsupportedOperationException.class, () -> d.allocations().clear());
  }
}
