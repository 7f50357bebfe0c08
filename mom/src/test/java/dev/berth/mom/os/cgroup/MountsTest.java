package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MountsTest {
  /** From the project machine: separate v1 mounts and the unified hierarchy (hybrid). */
  static final String HYBRID =
      """
      22 1 253:1 / / rw,relatime - ext4 /dev/vda rw
      31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
      32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
      33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
      34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
      35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
      37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
      40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
      41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
      """;

  @Test
  void findsSeparateMountsAndTheUnifiedHierarchy() {
    Mounts m = new Mounts(Mounts.parseMountinfo(HYBRID), Mounts.parseCgroupFile(""));
    assertEquals(7, m.all().size(), "only cgroup mounts are kept");
    assertEquals(Path.of("/sys/fs/cgroup/cpuset"), m.v1("cpuset").get(0).mountPoint());
    assertEquals(Path.of("/sys/fs/cgroup/memory"), m.v1("memory").get(0).mountPoint());
    assertEquals(Path.of("/sys/fs/cgroup/cpuacct"), m.v1("cpuacct").get(0).mountPoint());
    assertEquals(Path.of("/sys/fs/cgroup/freezer"), m.v1("freezer").get(0).mountPoint());
    assertEquals(Path.of("/sys/fs/cgroup/unified"), m.v2().get(0).mountPoint());
    assertTrue(m.v1("devices").isEmpty());
  }

  @Test
  void notesThatMovesWaitUnlessAHierarchyFavorsDynamicChanges() {
    Mounts plain = new Mounts(Mounts.parseMountinfo(HYBRID), Mounts.parseCgroupFile(""));
    assertTrue(plain.movesNote().contains("waits for an RCU grace period"), plain.movesNote());
    String favored = HYBRID.replace("cgroup2 cgroup2 rw\n", "cgroup2 cgroup2 rw,favordynmods\n");
    Mounts m = new Mounts(Mounts.parseMountinfo(favored), Mounts.parseCgroupFile(""));
    assertEquals("", m.movesNote(), "one mount with the option sets it for every hierarchy");
  }

  @Test
  void findsCoMountedControllers() {
    String text =
        """
        45 31 0:40 / /dev/torque rw,relatime shared:20 master:3 - cgroup torque rw,cpuset,memory
        46 31 0:41 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct
        """;
    Mounts m = new Mounts(Mounts.parseMountinfo(text), Mounts.parseCgroupFile(""));
    assertEquals(Path.of("/dev/torque"), m.v1("cpuset").get(0).mountPoint());
    assertEquals(Path.of("/dev/torque"), m.v1("memory").get(0).mountPoint());
    assertEquals(Path.of("/sys/fs/cgroup/cpu,cpuacct"), m.v1("cpuacct").get(0).mountPoint());
    assertTrue(m.v2().isEmpty());
  }

  @Test
  void prefersTheWholeHierarchyAndPureV2AtSysFsCgroup() {
    String text =
        """
        50 31 0:40 /docker/abc /in/container rw - cgroup cgroup rw,memory
        51 31 0:40 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
        52 1 0:41 / /tmp/other rw - cgroup2 cgroup2 rw
        53 1 0:41 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
        """;
    Mounts m = new Mounts(Mounts.parseMountinfo(text), Mounts.parseCgroupFile(""));
    assertEquals(Path.of("/sys/fs/cgroup/memory"), m.v1("memory").get(0).mountPoint());
    assertEquals(Path.of("/sys/fs/cgroup"), m.v2().get(0).mountPoint());
  }

  @Test
  void undoesEscapes() {
    String text = "60 31 0:50 / /mnt/my\\040cgroups\\134x rw - cgroup cg\\040src rw,freezer\n";
    Mounts.Mount m = Mounts.parseMountinfo(text).get(0);
    assertEquals(Path.of("/mnt/my cgroups\\x"), m.mountPoint());
    assertEquals(Set.of("rw", "freezer"), m.options());
    assertEquals("a\tb\nc", Mounts.unescape("a\\011b\\012c"));
    assertEquals("no\\escape\\9", Mounts.unescape("no\\escape\\9"));
  }

  @Test
  void mapsACgroupPathThroughTheMountRoot() {
    Mounts.Mount whole = new Mounts.Mount(Path.of("/m"), "/", "cgroup", Set.of("memory"));
    Mounts.Mount sub = new Mounts.Mount(Path.of("/c"), "/docker/abc", "cgroup", Set.of("memory"));
    assertEquals(Optional.of(Path.of("/m/process_api/x")), whole.dirOf("/process_api/x"));
    assertEquals(Optional.of(Path.of("/m")), whole.dirOf("/"));
    assertEquals(Optional.of(Path.of("/c")), sub.dirOf("/docker/abc"));
    assertEquals(Optional.of(Path.of("/c/job")), sub.dirOf("/docker/abc/job"));
    assertEquals(Optional.empty(), sub.dirOf("/docker/abcd"));
    assertEquals(Optional.empty(), sub.dirOf("/"));
  }

  @Test
  void readsTheOwnCgroups() {
    String text =
        """
        9:name=systemd:/
        4:memory:/process_api/b08
        2:cpu,cpuacct:/slurm
        0::/system.slice/berth-mom.service
        """;
    Mounts m = new Mounts(List.of(), Mounts.parseCgroupFile(text));
    assertEquals(Optional.of("/process_api/b08"), m.own("memory"));
    assertEquals(Optional.of("/slurm"), m.own("cpu"));
    assertEquals(Optional.of("/slurm"), m.own("cpuacct"));
    assertEquals(Optional.of("/"), m.own("name=systemd"));
    assertEquals(Optional.of("/system.slice/berth-mom.service"), m.own(CgroupConfig.UNIFIED));
    assertEquals(Optional.empty(), m.own("cpuset"));
  }
}
