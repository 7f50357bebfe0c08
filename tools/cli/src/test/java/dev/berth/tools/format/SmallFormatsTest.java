package dev.berth.tools.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.core.CpuRanges;
import dev.berth.proto.NodeAllocation;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmallFormatsTest {
  @Test
  void columnsCutThenPad() {
    assertEquals("ab   ", Columns.left("ab", 5));
    assertEquals("   ab", Columns.right("ab", 5));
    assertEquals("abc  ", Columns.left("abcdef", 5, 3));
    assertEquals("  abc", Columns.right("abcdef", 5, 3));
    assertEquals("abcdef", Columns.left("abcdef", 3), "a width is only a minimum");
    assertEquals("a     bb\n", Columns.line(new int[] {-5, 2}, "a", "bb"));
    assertThrows(IllegalArgumentException.class, () -> Columns.line(new int[] {1}, "a", "b"));
  }

  @Test
  void ctimePadsTheDayWithABlank() {
    assertEquals("Mon Nov 30 10:00:00 2026", CTime.format(1796032800L, ZoneOffset.UTC));
    assertEquals("Mon Mar  2 14:21:33 2026", CTime.format(1772461293L, ZoneOffset.UTC));
    assertEquals("Mon Nov 30 11:00:00 2026", CTime.format(1796032800L, ZoneId.of("Europe/Berlin")));
  }

  @Test
  void logDates() {
    assertEquals("11/30/2026 10:00:00", CTime.logDate(1796032800_123L, ZoneOffset.UTC));
    assertEquals("11/30/2026 10:00:00.123", CTime.logDateMillis(1796032800_123L, ZoneOffset.UTC));
    assertEquals("11/30/2026 10:00:00.007", CTime.logDateMillis(1796032800_007L, ZoneOffset.UTC));
  }

  @Test
  void cpuRangesAsTorque6() {
    assertEquals("", CpuRanges.format(List.of()));
    assertEquals("3", CpuRanges.format(List.of(3)));
    assertEquals("0-1", CpuRanges.format(List.of(0, 1)));
    assertEquals("0-2,5,7-8", CpuRanges.format(List.of(0, 1, 2, 5, 7, 8)));
  }

  @Test
  void execHostJoinsNodesWithPlus() {
    assertEquals(
        "node1/0-1+node2/0-1+node3/4,6",
        CpuRanges.execHost(
            List.of(
                NodeAllocation.newBuilder().setNode("node1").addCpus(0).addCpus(1).build(),
                NodeAllocation.newBuilder().setNode("node2").addCpus(0).addCpus(1).build(),
                NodeAllocation.newBuilder().setNode("node3").addCpus(4).addCpus(6).build())));
  }

  @Test
  void dottedNamesSplitAtTheFirstDot() {
    Attr attr = Attr.dotted("resources_max.walltime", "24:00:00");
    assertEquals("resources_max", attr.name());
    assertEquals("walltime", attr.resource());
    assertEquals("resources_max.walltime", attr.fullName());
    assertEquals("acl_hosts", Attr.dotted("acl_hosts", "x").fullName());
  }
}
