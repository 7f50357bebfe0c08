package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.NodeGroup;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeSpecTest {

  private static NodeGroup count(int count, int ppn) {
    return NodeGroup.newBuilder().setCount(count).setPpn(ppn).build();
  }

  @Test
  void countAlone() {
    NodeSpec.Parsed p = NodeSpec.parse("1");
    assertEquals(List.of(count(1, 1)), p.groups());
    assertFalse(p.exclusive());
    assertEquals(1, p.nodeCount());
    assertEquals(1, p.processCount());
  }

  @Test
  void countWithPpn() {
    NodeSpec.Parsed p = NodeSpec.parse("2:ppn=4");
    assertEquals(List.of(count(2, 4)), p.groups());
    assertEquals(2, p.nodeCount());
    assertEquals(8, p.processCount());
  }

  @Test
  void namedHost() {
    // corpus 18: a fully qualified host name is a group of one node
    NodeSpec.Parsed p = NodeSpec.parse("vision.mc.vanderbilt.edu");
    assertEquals(
        List.of(
            NodeGroup.newBuilder()
                .setCount(1)
                .setHost("vision.mc.vanderbilt.edu")
                .setPpn(1)
                .build()),
        p.groups());
    assertEquals(1, p.nodeCount());
  }

  @Test
  void namedHostWithPpnAndProperty() {
    NodeGroup g = NodeSpec.parse("node07:ppn=2:bigmem").groups().get(0);
    assertEquals("node07", g.getHost());
    assertEquals(1, g.getCount());
    assertEquals(2, g.getPpn());
    assertEquals(List.of("bigmem"), g.getPropertiesList());
  }

  @Test
  void hostNameMayStartWithADigit() {
    NodeGroup g = NodeSpec.parse("3com-01").groups().get(0);
    assertEquals("3com-01", g.getHost());
    assertEquals(1, g.getCount());
  }

  @Test
  void gpusWithoutPpnKeepsOneProcessor() {
    // corpus 17: nodes=1:gpus=2
    NodeGroup g = NodeSpec.parse("1:gpus=2").groups().get(0);
    assertEquals(1, g.getCount());
    assertEquals(1, g.getPpn());
    assertEquals(2, g.getGpus());
    assertEquals("", g.getGpuMode());
  }

  @ParameterizedTest(name = "gpus=1:{0}")
  @CsvSource({
    "exclusive_process",
    "exclusive_thread",
    "exclusive",
    "default",
    "shared",
    "reseterr"
  })
  void gpuModesAreRecordedNotTakenAsProperties(String mode) {
    NodeGroup g = NodeSpec.parse("1:ppn=1:gpus=1:" + mode).groups().get(0);
    assertEquals(mode, g.getGpuMode());
    assertEquals(1, g.getGpus());
    assertEquals(0, g.getPropertiesCount());
  }

  @Test
  void elementsMayComeInAnyOrder() {
    // corpus 05: nodes=1:gpus=1:ppn=4
    NodeGroup g = NodeSpec.parse("1:gpus=1:ppn=4").groups().get(0);
    assertEquals(4, g.getPpn());
    assertEquals(1, g.getGpus());
  }

  @Test
  void propertiesKeepTheirOrder() {
    NodeGroup g = NodeSpec.parse("2:fast:ppn=8:ib:nehalem").groups().get(0);
    assertEquals(List.of("fast", "ib", "nehalem"), g.getPropertiesList());
    assertEquals(2, g.getCount());
    assertEquals(8, g.getPpn());
  }

  @Test
  void nameAfterACountIsAProperty() {
    // corpus 20: node01 after a count is a property, not a host
    NodeSpec.Parsed p = NodeSpec.parse("1:node01:ppn=20+1:node03:ppn=24");
    assertEquals(2, p.groups().size());
    NodeGroup a = p.groups().get(0);
    NodeGroup b = p.groups().get(1);
    assertEquals("", a.getHost());
    assertEquals(List.of("node01"), a.getPropertiesList());
    assertEquals(20, a.getPpn());
    assertEquals(List.of("node03"), b.getPropertiesList());
    assertEquals(24, b.getPpn());
    assertEquals(2, p.nodeCount());
    assertEquals(44, p.processCount());
  }

  @Test
  void plusJoinsGroups() {
    // corpus 21
    NodeSpec.Parsed p = NodeSpec.parse("10:ppn=8+1:ppn=1");
    assertEquals(List.of(count(10, 8), count(1, 1)), p.groups());
    assertEquals(11, p.nodeCount());
    assertEquals(81, p.processCount());
  }

  @Test
  void hostAndCountGroupsMix() {
    NodeSpec.Parsed p = NodeSpec.parse("n1:ppn=2+3:ppn=4:gpu");
    assertEquals("n1", p.groups().get(0).getHost());
    assertEquals(3, p.groups().get(1).getCount());
    assertEquals(List.of("gpu"), p.groups().get(1).getPropertiesList());
    assertEquals(4, p.nodeCount());
    assertEquals(14, p.processCount());
  }

  @Test
  void exclSuffixMakesTheWholeSpecExclusive() {
    NodeSpec.Parsed p = NodeSpec.parse("2:ppn=4+1:ppn=2#excl");
    assertTrue(p.exclusive());
    assertEquals(List.of(count(2, 4), count(1, 2)), p.groups());
  }

  @Test
  void sharedSuffixIsNotExclusive() {
    NodeSpec.Parsed p = NodeSpec.parse("2:ppn=4#shared");
    assertFalse(p.exclusive());
    assertEquals(List.of(count(2, 4)), p.groups());
  }

  @Test
  void surroundingBlanksAreIgnored() {
    assertEquals(List.of(count(2, 4)), NodeSpec.parse("  2:ppn=4 ").groups());
  }

  @Test
  void laterPpnWins() {
    assertEquals(List.of(count(1, 3)), NodeSpec.parse("1:ppn=2:ppn=3").groups());
  }

  @Test
  void groupsAreImmutable() {
    List<NodeGroup> groups = NodeSpec.parse("1").groups();
    assertThrows(UnsupportedOperationException.class, () -> groups.add(count(1, 1)));
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      value = {
        "'' | nodes request is empty",
        "#excl | nodes request is empty",
        "2:ppn=4#exclusive | nodes '2:ppn=4#exclusive': unknown suffix '#exclusive'"
            + " (use #excl or #shared)",
        "2#excl#shared | nodes '2#excl#shared': unknown suffix '#excl#shared'"
            + " (use #excl or #shared)",
        "2# | nodes '2#': unknown suffix '#' (use #excl or #shared)",
        "1+ | nodes '1+' has an empty node group",
        "+1 | nodes '+1' has an empty node group",
        "1++1 | nodes '1++1' has an empty node group",
        ":ppn=2 | nodes ':ppn=2' has an empty node group",
        "0 | nodes '0': node count must be a positive number, not '0'",
        "99999999999 | nodes '99999999999': node count must be a positive number,"
            + " not '99999999999'",
        "-1 | nodes '-1': '-1' is not a count or name",
        "n@1:ppn=2 | nodes 'n@1:ppn=2': 'n@1' is not a count or name",
        "2:ppn=0 | nodes '2:ppn=0': ppn must be a positive number, not '0'",
        "2:ppn=-1 | nodes '2:ppn=-1': ppn must be a positive number, not '-1'",
        "2:ppn= | nodes '2:ppn=': ppn must be a positive number, not ''",
        "2:ppn=four | nodes '2:ppn=four': ppn must be a positive number, not 'four'",
        "2:ppn=4.5 | nodes '2:ppn=4.5': ppn must be a positive number, not '4.5'",
        "1:gpus=0 | nodes '1:gpus=0': gpus must be a positive number, not '0'",
        "2:PPN=4 | nodes '2:PPN=4': unknown node attribute 'PPN' (use ppn= or gpus=)",
        "2:mem=4gb | nodes '2:mem=4gb': unknown node attribute 'mem' (use ppn= or gpus=)",
        "2:ppn=4: | nodes '2:ppn=4:': '' is not a node property",
        "2:fast!  | nodes '2:fast!': 'fast!' is not a node property",
        "2:-fast | nodes '2:-fast': '-fast' is not a node property",
        "65536:ppn=32768 | nodes '65536:ppn=32768' asks for more than 2147483647 processes",
        "2147483647+1 | nodes '2147483647+1' asks for more than 2147483647 processes",
      })
  void rejectsBadSpecsNamingThem(String text, String message) {
    BadValueException e = assertThrows(BadValueException.class, () -> NodeSpec.parse(text));
    assertEquals(message, e.getMessage());
  }

  @Test
  void theLargestRequestThatFitsIsKept() {
    NodeSpec.Parsed p = NodeSpec.parse("1:ppn=2147483647");
    assertEquals(2147483647, p.processCount());
    assertEquals(1, p.nodeCount());
  }
}
