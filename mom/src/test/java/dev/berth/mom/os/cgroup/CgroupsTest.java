package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the configured mode picks a driver. */
class CgroupsTest {
  @TempDir Path tmp;

  private static CgroupDriver open(FakeTree t, String mode) throws IOException {
    CgroupConfig config = new CgroupConfig(CgroupConfig.Mode.parse(mode), "berth/n1", Map.of());
    return Cgroups.open(config, t.mountinfoFile(), t.cgroupFile());
  }

  @Test
  void autoTakesV1OnAHybridHostWhoseControllersAreInV1() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    assertInstanceOf(CgroupV1.class, open(t, "auto"));
    assertInstanceOf(CgroupV1.class, open(t, "v1"));
    CgroupDriver v2 = open(t, "v2");
    assertInstanceOf(CgroupV2.class, v2);
    assertEquals(Set.of(), v2.controllers(), "explicit v2 here tracks only");
  }

  @Test
  void autoTakesV2WhereItOffersCpusetAndMemory() throws IOException {
    FakeTree t = new FakeTree(tmp);
    t.v2("cgroup", FakeTree.v2Controllers());
    t.own("0:", "/");
    CgroupDriver d = open(t, "auto");
    assertInstanceOf(CgroupV2.class, d);
    assertEquals(Set.of("cpuset", "memory", "io", "pids"), d.controllers());
    IOException e = assertThrows(IOException.class, () -> open(t, "v1"));
    assertEquals("cgroup v1: no cpuset hierarchy is mounted", e.getMessage());
  }

  @Test
  void autoNamesWhatIsMissing() throws IOException {
    FakeTree t = new FakeTree(tmp);
    t.v2("cgroup", Map.of("cgroup.controllers", "cpu io pids"));
    t.v1("freezer", Map.of("freezer.state", "THAWED"));
    t.own("0:", "/");
    IOException e = assertThrows(IOException.class, () -> open(t, "auto"));
    assertTrue(e.getMessage().startsWith("no usable cgroups: cgroup v2: "), e.getMessage());
    assertTrue(e.getMessage().contains("offers cpu io pids"), e.getMessage());
    assertTrue(
        e.getMessage().endsWith("cgroup v1 needs cpuset and memory hierarchies; mounted: freezer"),
        e.getMessage());

    FakeTree none = new FakeTree(tmp.resolve("none"));
    e = assertThrows(IOException.class, () -> open(none, "auto"));
    assertEquals(
        "no usable cgroups: no cgroup2 file system is mounted; cgroup v1 needs cpuset and memory"
            + " hierarchies; mounted: none",
        e.getMessage());
  }
}
