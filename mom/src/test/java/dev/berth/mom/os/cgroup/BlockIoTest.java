package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which disks are counted, and the kernel's counters read. */
class BlockIoTest {
  @TempDir Path tmp;

  @Test
  void theDisksAreTheBlockDevicesBackedByADevice() throws IOException {
    Path sys = tmp.resolve("block");
    disk(sys, "vda", "254:0", true);
    disk(sys, "sda", "8:0", true);
    disk(sys, "loop0", "7:0", false);
    disk(sys, "zram0", "253:0", false);
    assertEquals(List.of("8:0", "254:0"), BlockIo.disks(sys));
    assertEquals(List.of(), BlockIo.disks(tmp.resolve("none")));
  }

  @Test
  void countingIsTurnedOnWithRulesThatLimitNothing() throws IOException {
    List<String> written = new ArrayList<>();
    Kernel kernel =
        new Kernel() {
          @Override
          public void write(Path file, String value) throws IOException {
            if (value.startsWith("8:0")) {
              throw new IOException("No such device");
            }
            written.add(file.getFileName() + " " + value);
          }

          @Override
          public void mkdir(Path dir) {}

          @Override
          public void rmdir(Path dir) {}

          @Override
          public void kill(long pid) {}
        };
    BlockIo.countV1(kernel, tmp, List.of("8:0", "254:0"));
    assertEquals(
        List.of(
            "blkio.throttle.read_bps_device 254:0 9223372036854775807",
            "blkio.throttle.write_bps_device 254:0 9223372036854775807"),
        written,
        "a disk that refuses is left out");
  }

  @Test
  void v1CountersAreSummedOverDisks() throws IOException {
    Files.writeString(
        tmp.resolve("blkio.throttle.io_service_bytes_recursive"),
        "254:0 Read 4096\n254:0 Write 20979712\n254:0 Sync 20979712\n254:0 Async 0\n"
            + "254:0 Discard 0\n254:0 Total 20983808\n8:0 Read 1\n8:0 Write 2\n8:0 Total 3\n"
            + "Total 20983811\n");
    assertEquals(new BlockIo.Bytes(4097, 20979714), BlockIo.v1(tmp));
    assertEquals(BlockIo.Bytes.UNKNOWN, BlockIo.v1(tmp.resolve("gone")));
  }

  @Test
  void v2IoStatIsSummedOverDisks() throws IOException {
    Files.writeString(
        tmp.resolve("io.stat"),
        "254:0 rbytes=1024 wbytes=2048 rios=1 wios=2 dbytes=0 dios=0\n"
            + "8:0 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=0 dios=0\n");
    assertEquals(new BlockIo.Bytes(1025, 2049), BlockIo.v2(tmp));
    assertEquals(BlockIo.Bytes.UNKNOWN, BlockIo.v2(tmp.resolve("gone")));
  }

  private static void disk(Path sys, String name, String dev, boolean backed) throws IOException {
    Path d = Files.createDirectories(sys.resolve(name));
    Files.writeString(d.resolve("dev"), dev + "\n");
    if (backed) {
      Files.createDirectory(d.resolve("device"));
    }
  }
}
