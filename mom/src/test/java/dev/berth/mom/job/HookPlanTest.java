package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.Variable;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Torque's prologue and epilogue scripts, their order, arguments and environment. */
class HookPlanTest {
  private static final Job JOB =
      Job.newBuilder()
          .setId("12.srv")
          .setEuser("alice")
          .setEgroup("users")
          .setName("sim")
          .setQueue("batch")
          .setAccount("proj")
          .setResources(
              ResourceRequest.newBuilder()
                  .putValues("walltime", "00:10:00")
                  .putValues("nodes", "2:ppn=1"))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0))
          .addExecNodes(NodeAllocation.newBuilder().setNode("n2").addCpus(0))
          .addVariables(Variable.newBuilder().setName("PBS_O_WORKDIR").setValue("/home/alice"))
          .build();

  @Test
  void prologuesRunAsRootThenAsTheOwnerWithTorquesSevenArguments() {
    List<HookPlan.Call> calls =
        HookPlan.prologues(JOB, "n1", Path.of("/tmp/12.srv"), Path.of("/tmp/12.srv/nodes"));
    assertEquals(List.of("prologue", "prologue.user"), calls.stream().map(c -> c.name()).toList());
    assertEquals(List.of(false, true), calls.stream().map(c -> c.asOwner()).toList());
    assertEquals(
        List.of(
            "12.srv", "alice", "users", "sim", "nodes=2:ppn=1,walltime=00:10:00", "batch", "proj"),
        calls.get(0).args());
    var env = calls.get(0).env();
    assertEquals("12.srv", env.get("PBS_JOBID"));
    assertEquals("n1", env.get("PBS_MSHOST"));
    assertEquals("0", env.get("PBS_NODENUM"));
    assertEquals("/tmp/12.srv/nodes", env.get("PBS_NODEFILE"));
    assertEquals("/tmp/12.srv", env.get("TMPDIR"));
    assertEquals("/home/alice", env.get("PBS_O_WORKDIR"));
    assertEquals("2:ppn=1", env.get("PBS_RESOURCE_NODES"));
    assertEquals("2", env.get("PBS_NUM_NODES"));
  }

  @Test
  void sistersRunTheParallelVariants() {
    List<HookPlan.Call> calls = HookPlan.prologues(JOB, "n2", Path.of("/tmp/x"), null);
    assertEquals(
        List.of("prologue.parallel", "prologue.user.parallel"),
        calls.stream().map(c -> c.name()).toList());
    assertEquals("1", calls.get(0).env().get("PBS_NODENUM"));
    assertFalse(calls.get(0).env().containsKey("PBS_NODEFILE"));
  }

  @Test
  void epiloguesRunAsTheOwnerThenAsRootWithTheSessionWhatItUsedAndItsExitStatus() {
    ResourcesUsed used =
        ResourcesUsed.newBuilder().setCput(61).setMem(2048).setVmem(4096).setWalltime(65).build();
    List<HookPlan.Call> calls =
        HookPlan.epilogues(JOB, "n1", Path.of("/tmp/x"), null, new HookPlan.Ending(4242, 3, used));
    assertEquals(List.of("epilogue.user", "epilogue"), calls.stream().map(c -> c.name()).toList());
    assertEquals(
        List.of(
            "12.srv",
            "alice",
            "users",
            "sim",
            "4242",
            "nodes=2:ppn=1,walltime=00:10:00",
            "cput=00:01:01,mem=2kb,vmem=4kb,walltime=00:01:05",
            "batch",
            "proj",
            "3"),
        calls.get(1).args());
    assertEquals(
        List.of("epilogue.user.parallel", "epilogue.parallel"),
        HookPlan.epilogues(JOB, "n2", Path.of("/tmp/x"), null, new HookPlan.Ending(0, 0, used))
            .stream()
            .map(c -> c.name())
            .toList());
  }
}
