package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The cgroup v1 memory limit. Where swap is accounted, memory.memsw.limit_in_bytes (memory plus
 * swap) is set to the same value so a job cannot escape its limit into swap; the kernel refuses any
 * write that would leave memsw below the limit, so memsw is raised first and lowered last. Where
 * swap is not accounted (no memsw files), the memory limit alone is set.
 */
final class MemoryLimits {
  static final String LIMIT = "memory.limit_in_bytes";
  static final String MEMSW = "memory.memsw.limit_in_bytes";

  private MemoryLimits() {}

  /** The files to write, in order, to move to {@code target} from the current memsw limit. */
  static List<String> order(long currentMemsw, long target) {
    return target > currentMemsw ? List.of(MEMSW, LIMIT) : List.of(LIMIT, MEMSW);
  }

  static void apply(Kernel kernel, Path dir, long limit) throws IOException {
    Path memsw = dir.resolve(MEMSW);
    if (!Files.exists(memsw)) {
      kernel.write(dir.resolve(LIMIT), Long.toString(limit));
      return;
    }
    for (String file : order(ControlFiles.readLong(memsw), limit)) {
      kernel.write(dir.resolve(file), Long.toString(limit));
    }
  }
}
