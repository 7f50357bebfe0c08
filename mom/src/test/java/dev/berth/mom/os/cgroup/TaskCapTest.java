package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskCapTest {
  /**
   * This host's own sysctl files, compared with what cat reads: a read of such a file at a later
   * offset gets end of file, so a reader that takes the first byte alone sees "3" of "32768".
   */
  @Test
  void theHostsCapIsThreeQuartersOfTheSmallerOfItsKernelLimits() throws Exception {
    long pids = Long.parseLong(cat("/proc/sys/kernel/pid_max"));
    long threads = Long.parseLong(cat("/proc/sys/kernel/threads-max"));
    assertEquals(Math.min(pids, threads) / 4 * 3, TaskCap.system());
  }

  @Test
  void unreadableLimitsMeanNoCap(@TempDir Path dir) throws IOException {
    assertEquals(0, TaskCap.of(dir));
    Files.writeString(dir.resolve("pid_max"), "4194304\n");
    Files.writeString(dir.resolve("threads-max"), "");
    assertEquals(0, TaskCap.of(dir));
    Files.writeString(dir.resolve("threads-max"), "1000\n");
    assertEquals(750, TaskCap.of(dir));
  }

  private static String cat(String file) throws IOException, InterruptedException {
    Process cat = new ProcessBuilder("cat", file).start();
    String out = new String(cat.getInputStream().readAllBytes()).strip();
    assertEquals(0, cat.waitFor());
    return out;
  }
}
