package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.ContainerSpec;
import dev.berth.proto.Container;
import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.Variable;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where a job's container comes from on a node. */
class ContainerPlanTest {
  private static final Path CACHE = Path.of("/var/cache/berth/n1/1001");
  private static final Path TMP = Path.of("/tmp/jobs/n1/7.srv");
  private static final List<Path> SHARED = List.of(Path.of("/opt/berth/bin"));

  private static ContainerSpec plan(Job job, List<Gpu> gpus, List<Path> present) {
    return ContainerPlan.of(job, "/home/alice", CACHE, TMP, SHARED, gpus, present).orElseThrow();
  }

  private static Job job(Container.Builder c, Variable... variables) {
    return Job.newBuilder().setContainer(c).addAllVariables(List.of(variables)).build();
  }

  @Test
  void aJobWithoutAContainerHasNone() {
    assertTrue(
        ContainerPlan.of(
                Job.getDefaultInstance(), "/home/a", CACHE, TMP, SHARED, List.of(), List.of())
            .isEmpty());
  }

  @Test
  void pathsAndNamesAreTheOwnersAndHomeIsExpanded() {
    ContainerSpec c =
        plan(
            job(
                Container.newBuilder()
                    .setImage("ompi")
                    .setName("dev")
                    .addMounts(
                        Container.Mount.newBuilder().setSource("$HOME/data").setTarget("/data"))
                    .addMounts(
                        Container.Mount.newBuilder()
                            .setSource("${HOME}")
                            .setTarget("/workspace")
                            .setReadOnly(true))
                    .setWorkdir("/workspace")
                    .setWritable(true)),
            List.of(),
            List.of());
    assertEquals(Path.of("/home/alice/.local/share/berth/images/ompi.sqsh"), c.image());
    assertEquals(Path.of("/home/alice/.local/share/berth/containers/dev"), c.named());
    assertEquals(List.of("/home/alice/data:/data", "/home/alice:/workspace:ro"), c.mounts());
    assertEquals("/workspace", c.workdir());
    assertTrue(c.writable());
    assertEquals(CACHE, c.cache());
    assertEquals(TMP, c.scratch());
    assertEquals(List.of(TMP, Path.of("/opt/berth/bin")), c.binds());
  }

  @Test
  void theDataDirectoryFollowsTheJobsSettingsAsBerthImageDoes() {
    Container.Builder image = Container.newBuilder().setImage("ompi");
    assertEquals(
        Path.of("/data/alice/images/ompi.sqsh"),
        plan(
                job(image, var("XDG_DATA_HOME", "/x"), var("BERTH_DATA_PATH", "/data/alice")),
                List.of(),
                List.of())
            .image());
    assertEquals(
        Path.of("/x/berth/images/ompi.sqsh"),
        plan(job(image, var("XDG_DATA_HOME", "/x")), List.of(), List.of()).image());
    assertEquals(
        Path.of("/img/o.sqsh"),
        plan(job(Container.newBuilder().setImage("/img/o.sqsh")), List.of(), List.of()).image());
    assertNull(plan(job(Container.newBuilder().setName("n")), List.of(), List.of()).image());
  }

  @Test
  void theJobsGpusAndNvidiasControlDevicesGoIn() {
    Gpu nvidia1 =
        Gpu.newBuilder().setIndex(1).setDevice("/dev/nvidia1").setMajor(195).setMinor(1).build();
    List<Path> present = List.of(Path.of("/dev/nvidiactl"), Path.of("/dev/nvidia-uvm"));
    ContainerSpec c =
        plan(job(Container.newBuilder().setImage("/i.sqsh")), List.of(nvidia1), present);
    assertEquals(
        List.of(Path.of("/dev/nvidia1"), Path.of("/dev/nvidiactl"), Path.of("/dev/nvidia-uvm")),
        c.devices());
    assertNull(c.nvidia(), "a GPU the driver did not name gets no driver files");
    Gpu named = nvidia1.toBuilder().setUuid("GPU-5c1e").build();
    assertEquals(
        "GPU-5c1e",
        plan(job(Container.newBuilder().setImage("/i.sqsh")), List.of(named), present).nvidia());
    Gpu other = Gpu.newBuilder().setDevice("/dev/accel0").setMajor(261).setMinor(0).build();
    assertEquals(
        List.of(Path.of("/dev/accel0")),
        plan(job(Container.newBuilder().setImage("/i.sqsh")), List.of(other), present).devices(),
        "NVIDIA's control devices only with NVIDIA's GPUs");
  }

  @Test
  void toolsComeWithTheNativeProgramTheirScriptsRun() {
    Path tools = Path.of("/opt/berth/bin");
    assertEquals(
        List.of(tools, Path.of("/opt/berth/libexec")),
        ContainerPlan.toolDirectories(
            tools, Set.of(Path.of("/opt/berth/libexec/berth-tm"))::contains));
    Path checkout = Path.of("/src/berth/ops/bin");
    assertEquals(
        List.of(checkout, Path.of("/src/berth/tools/tm/target/native")),
        ContainerPlan.toolDirectories(
            checkout, Set.of(Path.of("/src/berth/tools/tm/target/native/berth-tm"))::contains));
    assertEquals(List.of(tools), ContainerPlan.toolDirectories(tools, p -> false));
  }

  private static Variable var(String name, String value) {
    return Variable.newBuilder().setName(name).setValue(value).build();
  }
}
