package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The bytes a job's cgroup read from and wrote to the node's disks: cgroup v1's blkio throttle
 * counters, cgroup v2's io.stat. Under v1, writes the kernel flushes later from the page cache are
 * the flusher's, not the job's: only direct I/O and what the job's own fsync or sync writes out
 * count there, where v2 counts writeback too.
 */
final class BlockIo {
  /**
   * A throttling rule no disk reaches (2^63-1 bytes a second): cgroup v1 counts a cgroup's I/O to a
   * disk only while the cgroup has a rule for that disk.
   */
  static final String UNLIMITED = Long.toString(Long.MAX_VALUE);

  private BlockIo() {}

  /** Read and written bytes; {@link Usage#UNKNOWN} both where nothing counts them. */
  record Bytes(long read, long written) {
    static final Bytes UNKNOWN = new Bytes(CgroupUsage.UNKNOWN, CgroupUsage.UNKNOWN);
  }

  /**
   * The {@code MAJOR:MINOR} of each disk in {@code sysBlock} (/sys/block): block devices backed by
   * a device, so not loop, RAM or device-mapper devices, whose I/O reaches a disk counted already.
   */
  static List<String> disks(Path sysBlock) {
    List<String> disks = new ArrayList<>();
    try (Stream<Path> devices = Files.list(sysBlock)) {
      for (Path d : (Iterable<Path>) devices.sorted()::iterator) {
        if (Files.exists(d.resolve("device"))) {
          disks.add(ControlFiles.read(d.resolve("dev")));
        }
      }
    } catch (IOException e) {
      // no /sys/block: nothing to count
    }
    return disks;
  }

  /**
   * Turns on cgroup v1's counting of {@code blkio}'s I/O to {@code disks}, with rules that limit
   * nothing. A disk that refuses the rule (gone since it was listed) is left uncounted.
   */
  static void countV1(Kernel kernel, Path blkio, List<String> disks) {
    for (String disk : disks) {
      try {
        kernel.write(blkio.resolve("blkio.throttle.read_bps_device"), disk + " " + UNLIMITED);
        kernel.write(blkio.resolve("blkio.throttle.write_bps_device"), disk + " " + UNLIMITED);
      } catch (IOException e) {
        // an uncounted disk costs only its figures
      }
    }
  }

  /** The Read and Write lines of v1's blkio.throttle.io_service_bytes_recursive, summed. */
  static Bytes v1(Path blkio) throws IOException {
    Path file = blkio.resolve("blkio.throttle.io_service_bytes_recursive");
    if (!Files.exists(file)) {
      return Bytes.UNKNOWN;
    }
    long read = 0;
    long written = 0;
    for (String line : ControlFiles.read(file).split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length == 3 && f[1].equals("Read")) {
        read += Long.parseLong(f[2]);
      } else if (f.length == 3 && f[1].equals("Write")) {
        written += Long.parseLong(f[2]);
      }
    }
    return new Bytes(read, written);
  }

  /** The rbytes and wbytes of v2's io.stat, summed over its devices. */
  static Bytes v2(Path dir) throws IOException {
    Path file = dir.resolve("io.stat");
    if (!Files.exists(file)) {
      return Bytes.UNKNOWN;
    }
    long read = 0;
    long written = 0;
    for (String line : ControlFiles.read(file).split("\n")) {
      for (String field : line.trim().split("\\s+")) {
        if (field.startsWith("rbytes=")) {
          read += Long.parseLong(field.substring(7));
        } else if (field.startsWith("wbytes=")) {
          written += Long.parseLong(field.substring(7));
        }
      }
    }
    return new Bytes(read, written);
  }
}
