package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Container;
import dev.berth.proto.Error;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** -W container_*: what the server takes, and what it refuses before any node sees it. */
class ContainerSubmitTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  @Test
  void theContainerAttributesBecomeTheJobsContainer() {
    String id =
        d.submit(
            ALICE,
            attr("container_image", "/images/ompi.sqsh"),
            attr("container_mounts", "$HOME:/workspace,/scratch/alice:/scratch:ro"),
            attr("container_workdir", "/workspace/run"),
            attr("container_writable", "True"),
            attr("container_name", "ompi-dev"),
            attr("container_env", "NCCL_DEBUG, CUDA_HOME,NCCL_DEBUG"));
    Container c = d.job(id).getContainer();
    assertEquals("/images/ompi.sqsh", c.getImage());
    assertEquals(
        List.of(
            Container.Mount.newBuilder().setSource("$HOME").setTarget("/workspace").build(),
            Container.Mount.newBuilder()
                .setSource("/scratch/alice")
                .setTarget("/scratch")
                .setReadOnly(true)
                .build()),
        c.getMountsList());
    assertEquals("/workspace/run", c.getWorkdir());
    assertTrue(c.getWritable());
    assertFalse(c.getRemapRoot(), "only when asked, as pyxis");
    assertEquals("ompi-dev", c.getName());
    assertEquals(List.of("NCCL_DEBUG", "CUDA_HOME"), c.getEnvList(), "each once, trimmed");
    assertFalse(d.job(d.submit(ALICE)).hasContainer(), "a job without them runs on the host");
  }

  @Test
  void anImageMayBeANameInTheOwnersImageDirectory() {
    String id = d.submit(ALICE, attr("container_image", "ompi"));
    assertEquals("ompi", d.job(id).getContainer().getImage());
  }

  @Test
  void malformedValuesAreRefusedNamingTheAttribute() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("container_image", "images/../../etc/shadow")),
        "container_image",
        "must be an absolute path");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("container_image", "/images/../../etc/shadow")),
        "'..'");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("container_image", "a name")),
        "container_image 'a name' must be a path");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.submit(
                ALICE,
                attr("container_image", "/i.sqsh"),
                attr("container_mounts", "/data:workspace")),
        "container_mounts 'workspace' must be an absolute path");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.submit(
                ALICE, attr("container_image", "/i.sqsh"), attr("container_mounts", "/a:/b:rx")),
        "ends in 'rx', not ro or rw");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.submit(
                ALICE,
                attr("container_image", "/i.sqsh"),
                attr("container_mounts", "$USER/data:/data")),
        "(or start with $HOME)");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("container_image", "/i.sqsh"), attr("container_name", "../x")),
        "container_name '../x'");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("container_workdir", "/workspace")),
        "container attributes need container_image");
    for (String bad : List.of("A=B", "1X", "", "A,,B", "X Y")) {
      refused(
          Error.Code.BAD_VALUE,
          () -> d.submit(ALICE, attr("container_image", "/i.sqsh"), attr("container_env", bad)),
          "is not a variable's name");
    }
    String many =
        String.join(",", java.util.stream.IntStream.range(0, 65).mapToObj(i -> "V" + i).toList());
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("container_image", "/i.sqsh"), attr("container_env", many)),
        "container_env names more than 64 variables");
  }
}
