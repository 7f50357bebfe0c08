package dev.berth.mom.os.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.proto.Gpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding a node's GPUs: named device files, NVIDIA's device files and nvidia-smi's answer. */
class GpuInventoryTest {
  /** Named devices and none never ask nvidia-smi. */
  private static final Path NO_SMI = Path.of("/nonexistent/nvidia-smi");

  @TempDir Path tmp;

  @Test
  void namedDevicesAreNumberedInTheOrderGiven() throws IOException {
    List<Gpu> gpus = GpuInventory.of("/dev/zero, /dev/null", NO_SMI);
    assertEquals(2, gpus.size());
    assertEquals(0, gpus.get(0).getIndex());
    assertEquals("/dev/zero", gpus.get(0).getDevice());
    assertEquals(1, gpus.get(0).getMajor());
    assertEquals(5, gpus.get(0).getMinor());
    assertEquals(1, gpus.get(1).getIndex());
    assertEquals(3, gpus.get(1).getMinor());
    assertEquals(List.of(), GpuInventory.of("none", NO_SMI));
  }

  @Test
  void aFileThatIsNoCharacterDeviceOrADeviceNamedTwiceIsRefused() throws IOException {
    Path file = Files.writeString(tmp.resolve("gpu0"), "");
    IOException e = assertThrows(IOException.class, () -> GpuInventory.of(file.toString(), NO_SMI));
    assertEquals(file + " is not a character device", e.getMessage());
    e =
        assertThrows(
            IOException.class, () -> GpuInventory.of(tmp.resolve("gone").toString(), NO_SMI));
    assertTrue(e.getMessage().startsWith(tmp.resolve("gone").toString()), e.getMessage());
    Path link = Files.createSymbolicLink(tmp.resolve("null2"), Path.of("/dev/null"));
    e = assertThrows(IOException.class, () -> GpuInventory.of("/dev/null," + link, NO_SMI));
    assertEquals("GPU device " + link + " is device 1:3 again", e.getMessage());
    e = assertThrows(IOException.class, () -> GpuInventory.of("dev/null", NO_SMI));
    assertEquals("GPU device dev/null is not an absolute path", e.getMessage());
  }

  @Test
  void deviceNumbersAreDecodedAsGlibcDoes() {
    assertEquals(new DeviceFiles.Numbers(195, 255), DeviceFiles.decode((195L << 8) | 255));
    // large numbers: major 0x1234 and minor 0x56789 spread over the 64 bits
    long rdev = (0x234L << 8) | (0x1L << 32 << 12) | 0x89L | (0x567L << 12 << 8);
    assertEquals(new DeviceFiles.Numbers(0x1234, 0x56789), DeviceFiles.decode(rdev));
  }

  @Test
  void nvidiaSmisAnswerIsReadByMinorNumber() {
    Map<Integer, NvidiaSmi.Facts> facts =
        NvidiaSmi.parse(
            "0, 1, GPU-aaaa, NVIDIA A100-SXM4-40GB, 00000000:07:00.0, 40960\n"
                + "1, 0, GPU-bbbb, NVIDIA A100-SXM4-40GB, 00000000:0F:00.0, 40960\n"
                + "WARNING: infoROM is corrupted at gpu 0000:0F:00.0\n");
    assertEquals(2, facts.size());
    NvidiaSmi.Facts minor1 = facts.get(1);
    assertEquals(0, minor1.index());
    assertEquals("GPU-aaaa", minor1.uuid());
    assertEquals("NVIDIA A100-SXM4-40GB", minor1.model());
    assertEquals("00000000:07:00.0", minor1.busId());
    assertEquals(40960L << 20, minor1.memory());
  }

  @Test
  void nvidiaSmisSamplesAreReadByMinorNumberAndFiguresItCannotTellAreLeftOut() {
    Map<Integer, GpuSample> samples =
        NvidiaSmi.parseSamples(
            "0, 87, 30512\n"
                + "1, [N/A], 1024\n"
                + "2, 0, 0\n"
                + "3, 101, 5\n"
                + "WARNING: infoROM is corrupted at gpu 0000:0F:00.0\n");
    assertEquals(Map.of(0, new GpuSample(87, 30512L << 20), 2, new GpuSample(0, 0)), samples);
  }

  @Test
  void nvidiaGpusAreTheDeviceFilesOrderedAsNvidiaSmiNumbersThem() throws Exception {
    assumeTrue(System.getProperty("user.name").equals("root"), "mknod needs root");
    for (int minor : List.of(0, 1, 255)) {
      String name = minor == 255 ? "nvidiactl" : "nvidia" + minor;
      Process p =
          new ProcessBuilder(
                  "mknod", tmp.resolve(name).toString(), "c", "195", Integer.toString(minor))
              .inheritIO()
              .start();
      assertEquals(0, p.waitFor());
    }
    Files.writeString(tmp.resolve("nvidia7"), "a regular file, not a GPU");
    Map<Integer, NvidiaSmi.Facts> smi =
        Map.of(
            0, new NvidiaSmi.Facts(1, "GPU-b", "m", "00000000:0F:00.0", 0),
            1, new NvidiaSmi.Facts(0, "GPU-a", "m", "00000000:07:00.0", 0));
    List<Gpu> gpus = GpuInventory.nvidia(tmp, smi);
    assertEquals(List.of("GPU-a", "GPU-b"), gpus.stream().map(Gpu::getUuid).toList());
    assertEquals(List.of(1, 0), gpus.stream().map(Gpu::getMinor).toList());
    assertEquals(List.of(0, 1), gpus.stream().map(Gpu::getIndex).toList());
    List<Gpu> withoutSmi = GpuInventory.nvidia(tmp, Map.of());
    assertEquals(List.of(0, 1), withoutSmi.stream().map(Gpu::getMinor).toList());
  }
}
