package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job's cgroup removed with whatever cgroups were made below it, deepest first. */
class TeardownTest {
  @TempDir Path tmp;

  @Test
  void cgroupsBelowTheJobsGoFirstHoweverTheyNest() throws IOException {
    FakeTree tree = new FakeTree(tmp);
    Path mount = tree.v1("cpuacct", Map.of("cpuacct.usage", "0"));
    Path job = tree.cgroup(mount, "berth/n1/1.srv");
    tree.cgroup(mount, "berth/n1/1.srv/" + "a/".repeat(300) + "leaf");
    for (int i = 0; i < 20; i++) {
      tree.cgroup(mount, "berth/n1/1.srv/wide" + i + "/x");
    }
    Teardown.remove(tree.kernel, List.of(job), Duration.ofSeconds(5));
    assertFalse(Files.exists(job));
    assertTrue(Files.isDirectory(job.getParent()), "only the job's cgroup goes");
  }

  @Test
  void aCgroupWithProcessesBelowTheJobsIsNamedOnceTheTimeIsUp() throws IOException {
    FakeTree tree = new FakeTree(tmp);
    Path mount = tree.v1("cpuacct", Map.of("cpuacct.usage", "0"));
    Path job = tree.cgroup(mount, "berth/n1/1.srv");
    Path busy = tree.cgroup(mount, "berth/n1/1.srv/a/b");
    Files.writeString(busy.resolve("cgroup.procs"), "4242\n");
    IOException e =
        assertThrows(
            IOException.class,
            () -> Teardown.remove(tree.kernel, List.of(job), Duration.ofMillis(50)));
    assertTrue(e.getMessage().contains("Device or resource busy"), e.getMessage());
    assertTrue(Files.isDirectory(busy));
  }
}
