package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CgroupConfigTest {
  @Test
  void parsesModesAndParents() {
    assertEquals(CgroupConfig.Mode.V1, CgroupConfig.Mode.parse("v1"));
    assertEquals(CgroupConfig.Mode.AUTO, CgroupConfig.Mode.parse(" Auto "));
    assertThrows(IllegalArgumentException.class, () -> CgroupConfig.Mode.parse("v3"));
    assertEquals(
        Map.of("*", "/", "memory", "/process_api/x"),
        CgroupConfig.parseParents("/, memory=/process_api/x"));
    assertEquals(Map.of(), CgroupConfig.parseParents(""));
  }

  @Test
  void aParentForOneHierarchyWinsOverTheOneForAll() {
    CgroupConfig c =
        new CgroupConfig(CgroupConfig.Mode.V1, "berth/n1/", Map.of("*", "/a", "memory", "/b"));
    assertEquals("berth/n1", c.root());
    assertEquals("/b", c.parentFor("memory"));
    assertEquals("/a", c.parentFor("cpuset"));
    assertNull(CgroupConfig.of("berth").parentFor("cpuset"));
  }

  @Test
  void refusesRootsAndParentsThatLeaveTheirPlace() {
    for (String bad : List.of("", "/berth", "berth/../x", "berth//n1", "a\nb")) {
      assertThrows(IllegalArgumentException.class, () -> CgroupConfig.of(bad), bad);
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> new CgroupConfig(CgroupConfig.Mode.V1, "b", Map.of("memory", "relative")));
    assertThrows(
        IllegalArgumentException.class,
        () -> new CgroupConfig(CgroupConfig.Mode.V1, "b", Map.of("memory", "/a/../..")));
    assertThrows(IllegalArgumentException.class, () -> CgroupNames.check("1/2", "job id"));
    assertEquals("12[3].srv-a", CgroupNames.check("12[3].srv-a", "job id"));
  }

  @Test
  void formatsAndParsesCpuLists() {
    assertEquals("0-3,6,8-9", CpuList.format(List.of(9, 0, 1, 2, 3, 6, 8)));
    assertEquals("5", CpuList.format(List.of(5)));
    assertEquals("", CpuList.format(List.of()));
    assertEquals(List.of(0, 1, 2, 3, 6, 8, 9), CpuList.parse("0-3,6,8-9\n"));
    assertEquals(List.of(), CpuList.parse(""));
  }
}
