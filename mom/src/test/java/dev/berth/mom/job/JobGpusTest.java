package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A job's GPUs on one node, its environment and its PBS_GPUFILE. */
class JobGpusTest {
  private static final List<Gpu> FOUR =
      IntStream.range(0, 4)
          .mapToObj(
              i ->
                  Gpu.newBuilder()
                      .setIndex(i)
                      .setDevice("/dev/nvidia" + i)
                      .setMajor(195)
                      .setMinor(i)
                      .build())
          .toList();
  private static final Path GPUFILE = Path.of("/tmp/7.srv/gpufile");

  /** GPUs 1 and 3 on a, none on b, GPU 0 on c. */
  private static Job job() {
    return Job.newBuilder()
        .setId("7.srv")
        .addExecNodes(
            NodeAllocation.newBuilder()
                .setNode("a")
                .addCpus(0)
                .setGpus(2)
                .addGpuIds(1)
                .addGpuIds(3))
        .addExecNodes(NodeAllocation.newBuilder().setNode("b").addCpus(0))
        .addExecNodes(NodeAllocation.newBuilder().setNode("c").addCpus(1).setGpus(1).addGpuIds(0))
        .build();
  }

  @Test
  void theJobSeesItsGpusNumberedFromZeroAndIsDeniedTheOthers() throws Exception {
    JobGpus a = JobGpus.of(job(), "a", FOUR);
    assertEquals(List.of(FOUR.get(1), FOUR.get(3)), a.held());
    assertEquals(List.of(FOUR.get(0), FOUR.get(2)), a.others());
    Map<String, String> env = new HashMap<>(Map.of("CUDA_VISIBLE_DEVICES", "2,3"));
    a.addTo(env, GPUFILE);
    assertEquals("0,1", env.get("CUDA_VISIBLE_DEVICES"), "the cgroup hides the others from CUDA");
    assertEquals("PCI_BUS_ID", env.get("CUDA_DEVICE_ORDER"));
    assertEquals(GPUFILE.toString(), env.get("PBS_GPUFILE"));
  }

  /** srun --gpus-per-task: a task sees only its own of the job's GPUs here. */
  @Test
  void aTaskWithGpusOfItsOwnSeesOnlyThose() throws Exception {
    JobGpus a = JobGpus.of(job(), "a", FOUR);
    Map<String, String> env = new HashMap<>();
    a.addTo(env, GPUFILE, List.of(1));
    assertEquals("1", env.get("CUDA_VISIBLE_DEVICES"));
    IllegalArgumentException beyond =
        assertThrows(IllegalArgumentException.class, () -> a.addTo(env, GPUFILE, List.of(1, 2)));
    assertEquals("the task's GPU 2 is not one of the job's 2 on this node", beyond.getMessage());
    assertThrows(IllegalArgumentException.class, () -> a.addTo(env, GPUFILE, List.of(0, 0)));
    assertThrows(IllegalArgumentException.class, () -> a.addTo(env, GPUFILE, List.of(-1)));
    List<Integer> many = java.util.Collections.nCopies(1 << 20, 0);
    assertEquals(
        "the task asks 1048576 GPUs, more than the job's 2 on this node",
        assertThrows(IllegalArgumentException.class, () -> a.addTo(env, GPUFILE, many))
            .getMessage());
    JobGpus b = JobGpus.of(job(), "b", FOUR);
    assertThrows(IllegalArgumentException.class, () -> b.addTo(env, GPUFILE, List.of(0)));
  }

  @Test
  void aNodeWhereTheJobHoldsNoneDeniesAllAndDropsAnotherNodesSetting() throws Exception {
    JobGpus b = JobGpus.of(job(), "b", FOUR);
    assertEquals(List.of(), b.held());
    assertEquals(FOUR, b.others());
    Map<String, String> env = new HashMap<>(Map.of("CUDA_VISIBLE_DEVICES", "0,1"));
    b.addTo(env, GPUFILE);
    assertFalse(env.containsKey("CUDA_VISIBLE_DEVICES"), "a's setting came with a task");
    assertEquals(GPUFILE.toString(), env.get("PBS_GPUFILE"));
  }

  @Test
  void aJobWithoutGpusGetsNoGpuVariables() throws Exception {
    Job plain =
        Job.newBuilder().addExecNodes(NodeAllocation.newBuilder().setNode("a").addCpus(0)).build();
    JobGpus none = JobGpus.of(plain, "a", FOUR);
    Map<String, String> env = new HashMap<>(Map.of("CUDA_VISIBLE_DEVICES", "1"));
    none.addTo(env, GPUFILE);
    assertEquals(Map.of("CUDA_VISIBLE_DEVICES", "1"), env, "the user's own setting stays");
    assertEquals(FOUR, none.others());
    assertFalse(JobGpus.any(plain));
  }

  @Test
  void theGpufileListsEveryGpuOfTheJobAsTorqueDoes() {
    assertTrue(JobGpus.any(job()));
    assertEquals(List.of("a-gpu1", "a-gpu3", "c-gpu0"), JobGpus.fileLines(job()));
  }

  @Test
  void aGpuTheNodeDoesNotHaveIsRefused() {
    JobGpus.Mismatch e =
        assertThrows(JobGpus.Mismatch.class, () -> JobGpus.of(job(), "a", FOUR.subList(0, 2)));
    assertEquals("node a has no GPU 3: its mom offers 2 (berth mom --gpus)", e.getMessage());
    Job countOnly =
        Job.newBuilder()
            .addExecNodes(NodeAllocation.newBuilder().setNode("a").addCpus(0).setGpus(1))
            .build();
    e = assertThrows(JobGpus.Mismatch.class, () -> JobGpus.of(countOnly, "a", FOUR));
    assertEquals("the job holds 1 GPUs on a but not which ones", e.getMessage());
  }
}
