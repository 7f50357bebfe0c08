package dev.berth.core.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Host lists and counts as Slurm 22.05 prints them (hostlist.c, notes/slurm-reference.md). */
class HostListTest {
  @Test
  void oneHostStandsAlone() {
    assertEquals("vm", HostList.compress(List.of("vm")));
    assertEquals("n05", HostList.compress(List.of("n05")));
  }

  @Test
  void consecutiveNumbersOfOneWidthBecomeRangesInOneBracketPerPrefix() {
    assertEquals("n[01-03,05]", HostList.compress(List.of("n05", "n02", "n01", "n03")));
    assertEquals("a[1-2],b3", HostList.compress(List.of("b3", "a2", "a1")));
    assertEquals("node[9-11]", HostList.compress(List.of("node10", "node9", "node11")));
  }

  @Test
  void widthsAreKeptAndNotMerged() {
    assertEquals("n[1,01-02]", HostList.compress(List.of("n01", "n1", "n02")));
  }

  @Test
  void namesWithoutTrailingDigitsAndDuplicatesAreListedOnce() {
    assertEquals(
        "head,login,n[1-2]", HostList.compress(List.of("n2", "login", "head", "n1", "n2")));
  }

  @Test
  void hostsSortByPrefixThenNumber() {
    assertEquals(List.of("a2", "n9", "n10", "x"), HostList.sorted(List.of("n10", "x", "n9", "a2")));
  }

  @Test
  void runsOfEqualCountsAreWrittenOnceWithTheirLength() {
    assertEquals("2(x3),1", HostList.counts(List.of(2, 2, 2, 1)));
    assertEquals("2", HostList.counts(List.of(2)));
    assertEquals("4,2(x2),4", HostList.counts(List.of(4, 2, 2, 4)));
    assertEquals("", HostList.counts(List.of()));
  }

  @Test
  void listsExpandInTheirOrderWithWidthsAndDuplicatesKept() throws Exception {
    assertEquals(
        List.of("n01", "n02", "n03", "n07", "login", "n1"),
        HostList.expand("n[01-03,07],login n1"));
    assertEquals(List.of("n9", "n10", "n9"), HostList.expand("n[9-10],n9"));
    assertEquals(List.of("r1-n1", "r1-n2", "r2-n1", "r2-n2"), HostList.expand("r[1-2]-n[1-2]"));
    assertEquals(List.of(), HostList.expand(""));
  }

  @Test
  void whatCannotBeReadOrIsTooLongIsRefused() {
    for (String bad :
        List.of("n[1-", "n[2-1]", "n[a-b]", "n[1-2]]", "n[[1]]", "n[]", "n[1-99999999]")) {
      HostList.InvalidException e =
          assertThrows(HostList.InvalidException.class, () -> HostList.expand(bad), bad);
      assertEquals("Invalid hostlist: " + bad, e.getMessage());
    }
    // the bound is on names, however they are written
    assertThrows(HostList.InvalidException.class, () -> HostList.expand("a[1-60000]b[1-2]"));
  }

  @Test
  void compressingWhatExpandsGivesTheListBack() throws Exception {
    assertEquals("n[01-03,07]", HostList.compress(HostList.expand("n[07,01-03]")));
  }

  @Test
  void inTheOrderGivenNeighboursOfOnePrefixShareABracketAndDuplicatesStay() {
    assertEquals(
        "n[3,1-2],a1,n[1,1]", HostList.ranged(List.of("n3", "n1", "n2", "a1", "n1", "n1")));
  }
}
