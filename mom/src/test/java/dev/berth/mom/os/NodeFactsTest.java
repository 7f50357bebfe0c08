package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeFactsTest {
  @TempDir Path root;

  @Test
  void parsesCpuLists() {
    assertEquals(List.of(0, 1, 2, 3, 6, 8, 9), NodeFacts.parseCpuList("0-3,6,8-9"));
    assertEquals(List.of(5), NodeFacts.parseCpuList("5"));
    assertEquals(List.of(), NodeFacts.parseCpuList(""));
    IllegalArgumentException bad =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> NodeFacts.parseCpuList("0-1,bogus"));
    assertEquals("'bogus' in '0-1,bogus' is not a CPU id or range (like 0-3,8)", bad.getMessage());
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> NodeFacts.parseCpuList("3-1"));
    assertEquals(List.of(0, 1), NodeFacts.parseCpuList("0-1,"));
  }

  @Test
  void readsAFakeProcAndSys() throws IOException {
    Path proc = Files.createDirectories(root.resolve("proc"));
    Path sys = root.resolve("sys");
    Files.createDirectories(sys.resolve("devices/system/cpu"));
    Files.writeString(sys.resolve("devices/system/cpu/online"), "0-1,4\n");
    Files.writeString(
        proc.resolve("meminfo"),
        "MemTotal:       16384 kB\nMemFree:         1024 kB\nMemAvailable:    8192 kB\n"
            + "HugePages_Total:       0\n");
    Files.writeString(proc.resolve("loadavg"), "0.42 0.30 0.10 1/123 4567\n");

    NodeFacts facts = new NodeFacts(proc, sys);
    assertEquals(List.of(0, 1, 4), facts.onlineCpus());
    assertEquals(16384L * 1024, facts.physmem());
    assertEquals(
        Map.of("loadave", "0.42", "physmem", "16384kb", "availmem", "8192kb", "ncpus", "3"),
        facts.status());
  }

  @Test
  void missingFilesGiveFallbacks() {
    NodeFacts facts = new NodeFacts(root.resolve("noproc"), root.resolve("nosys"));
    assertEquals(Runtime.getRuntime().availableProcessors(), facts.onlineCpus().size());
    assertEquals(0, facts.physmem());
    Map<String, String> status = facts.status();
    assertFalse(status.containsKey("loadave"));
    assertEquals("0kb", status.get("physmem"));
  }
}
