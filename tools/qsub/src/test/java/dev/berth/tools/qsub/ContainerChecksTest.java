package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.client.LocalFiles;
import dev.berth.client.LocalFiles.Probe;
import dev.berth.proto.Attribute;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What qsub checks of a container job, through the probes its client answers. */
class ContainerChecksTest {
  private final Map<Path, Probe> answers = new LinkedHashMap<>();
  private final List<List<Path>> asked = new ArrayList<>();
  private final LocalFiles files =
      new LocalFiles() {
        @Override
        public byte[] read(Path file) {
          throw new AssertionError("qsub reads no image");
        }

        @Override
        public Map<Path, Probe> probe(List<Path> paths) {
          asked.add(paths);
          Map<Path, Probe> result = new LinkedHashMap<>();
          paths.forEach(p -> result.put(p, answers.get(p)));
          return result;
        }
      };

  private static Attribute attr(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).build();
  }

  /** A squashfs 4.0 superblock of an image of {@code size} bytes. */
  private static byte[] superblock(long size) {
    ByteBuffer b = ByteBuffer.allocate(96).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, 0x73717368).putInt(12, 131072).putShort(20, (short) 5).putShort(22, (short) 17);
    b.putShort(28, (short) 4).putLong(40, size).putLong(64, 200).putLong(72, 300);
    return b.array();
  }

  private String refusal(Attribute... attributes) {
    return assertThrows(
            QsubException.class,
            () -> ContainerChecks.check(List.of(attributes), Map.of("HOME", "/home/a"), files))
        .getMessage();
  }

  @Test
  void anImageTheCallerCanReadAndMountsTheyCanReadPass() throws Exception {
    answers.put(Path.of("/img/o.sqsh"), new Probe(Probe.Kind.FILE, 4096, superblock(4096), ""));
    answers.put(Path.of("/home/a/data"), new Probe(Probe.Kind.DIRECTORY, 0, null, ""));
    ContainerChecks.check(
        List.of(
            attr("container_image", "/img/o.sqsh"),
            attr("container_mounts", "$HOME/data:/data:ro")),
        Map.of("HOME", "/home/a"),
        files);
    assertEquals(List.of(List.of(Path.of("/home/a/data"), Path.of("/img/o.sqsh"))), asked);
  }

  @Test
  void whatIsWrongIsSaid() {
    Attribute image = attr("container_image", "/img/o.sqsh");
    answers.put(Path.of("/img/o.sqsh"), new Probe(Probe.Kind.MISSING, 0, null, ""));
    assertEquals("container_image /img/o.sqsh: no such file", refusal(image));
    answers.put(Path.of("/img/o.sqsh"), new Probe(Probe.Kind.DENIED, 0, null, ""));
    assertEquals("container_image /img/o.sqsh: you cannot read it", refusal(image));
    answers.put(Path.of("/img/o.sqsh"), new Probe(Probe.Kind.FILE, 10, null, ""));
    assertEquals(
        "container_image /img/o.sqsh: not a squashfs image (make one with berth image)",
        refusal(image));
    answers.put(Path.of("/img/o.sqsh"), new Probe(Probe.Kind.FILE, 100, superblock(4096), ""));
    assertEquals(
        "container_image /img/o.sqsh: superblock says 4096 bytes are used, but the file has 100"
            + " (truncated or not an image)",
        refusal(image));
    answers.put(Path.of("/img/o.sqsh"), new Probe(Probe.Kind.FILE, 4096, superblock(4096), ""));
    answers.put(Path.of("/root"), new Probe(Probe.Kind.DENIED, 0, null, ""));
    assertEquals(
        "container_mounts: you cannot read /root",
        refusal(image, attr("container_mounts", "/root:/r")));
  }

  @Test
  void imagesByNameAndJobsWithoutContainersAskNothing() throws Exception {
    ContainerChecks.check(
        List.of(attr("container_image", "ompi"), attr("Job_Name", "x")), Map.of(), files);
    assertEquals(List.of(), asked);
  }
}
