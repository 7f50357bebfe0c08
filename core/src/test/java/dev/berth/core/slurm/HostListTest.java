package dev.berth.core.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
