package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.core.pbs.ValueType;
import dev.berth.proto.Container;
import dev.berth.proto.Dependency;
import dev.berth.proto.Interactive;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.SchedulingPriority;
import dev.berth.tools.format.Attr;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.SampleJobs;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * qstat -f's names are core's: each attribute it shows is one of AttributeTable.JOB or JOB_STATUS
 * (but the places Torque keeps for what Berth does not take), a time is one the table measures in
 * epoch seconds, and a JSON number one the table says is a number.
 */
class JobAttributeListTest {
  /**
   * Torque's places for attributes Berth does not take, shown when a job's extensions hold them.
   */
  private static final Set<String> TORQUES_ONLY = Set.of("stagein", "stageout", "User_List");

  /** A running job with everything qstat -f can show. */
  private static Job everything() {
    return SampleJobs.running()
        .setAccount("proj")
        .addDependencies(Dependency.newBuilder().setType("afterok").addJobIds("11.srv"))
        .setExecNodes(
            0, NodeAllocation.newBuilder().setNode("n1").addCpus(0).addCpus(1).addGpuIds(0))
        .setExecutionTime(SampleJobs.CTIME)
        .putExtensions("group_list", "users")
        .putExtensions("umask", "022")
        .putExtensions("job_radix", "2")
        .putExtensions("x", "y")
        .putExtensions("stagein", "a@b:/c")
        .setInteractive(Interactive.newBuilder().setCommand("hostname"))
        .setMailUsers("alice@example.org")
        .setPriority(10)
        .setShell("/bin/bash")
        .setComment("a comment")
        .setExitStatus(0)
        .setArrayParent("12[].srv")
        .setArrayIndex(3)
        .setArrayRequest("1-4")
        .setCompTime(FakeCli.NOW)
        .setNodeExclusive(true)
        .setWorkDir("/home/alice")
        .setCgroupEnable(true)
        .setExitReason("walltime")
        .setSchedPriority(SchedulingPriority.newBuilder().setTotal(5).setAge(5))
        .setEstimatedStartTime(FakeCli.NOW + 60)
        .setPlannedWalltime(600)
        .setPlannedWalltimeSource("resources_max.walltime of queue batch")
        .setContainer(
            Container.newBuilder()
                .setImage("ubuntu")
                .setName("c")
                .addMounts(Container.Mount.newBuilder().setSource("/a").setTarget("/b"))
                .setWorkdir("/b"))
        .build();
  }

  @Test
  void everyNameIsInCoresTablesWithTheKindItsDefinitionGives() {
    List<Attr> attrs = JobAttributeList.of(everything(), FakeCli.NOW);
    assertTrue(attrs.size() > 60, "the job shows " + attrs.size() + " attributes");
    for (Attr a : attrs) {
      if (TORQUES_ONLY.contains(a.name())) {
        continue;
      }
      AttributeDef d = definition(a.name()).orElseThrow(() -> new AssertionError(a.name()));
      assertEquals(a.resource() != null, d.type().named(), a.name() + " and a name after a dot");
      assertEquals(
          a.kind() == Attr.Kind.TIME,
          d.unit() == AttributeDef.Unit.EPOCH_SECONDS,
          a.name() + " is shown as a date when it is a moment");
      if (a.kind() == Attr.Kind.NUMBER) {
        assertTrue(
            d.type() == ValueType.INTEGER || d.type() == ValueType.RESOURCE,
            a.name() + " is a number by definition");
      }
    }
  }

  private static Optional<AttributeDef> definition(String name) {
    return AttributeTable.JOB.find(name).or(() -> AttributeTable.JOB_STATUS.find(name));
  }
}
