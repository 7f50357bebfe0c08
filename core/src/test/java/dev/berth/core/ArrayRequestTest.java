package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ArrayRequestTest {
  private static final int MAX = 10_000;

  private static List<Integer> range(int low, int high) {
    return IntStream.rangeClosed(low, high).boxed().toList();
  }

  @Test
  void rangeWithSlotLimit() {
    // corpus 03
    assertEquals(new ArrayRequest(List.of(1, 2, 3, 4), 4), ArrayRequest.parse("1-4%4", MAX));
  }

  @Test
  void singleIndex() {
    assertEquals(new ArrayRequest(List.of(5), 0), ArrayRequest.parse("5", MAX));
  }

  @Test
  void zeroIsAValidIndex() {
    ArrayRequest r = ArrayRequest.parse("0-19%20", MAX); // corpus 05
    assertEquals(range(0, 19), r.indices());
    assertEquals(20, r.slotLimit());
  }

  @Test
  void listOfNumbersAndRanges() {
    ArrayRequest r = ArrayRequest.parse("1,10,50-100", MAX);
    assertEquals(53, r.indices().size());
    assertEquals(List.of(1, 10, 50, 51), r.indices().subList(0, 4));
    assertEquals(100, r.indices().get(52));
    assertEquals(0, r.slotLimit());
  }

  @Test
  void listOfRangesWithSlotLimit() {
    // corpus 10: 39 tasks, 24 at a time
    ArrayRequest r = ArrayRequest.parse("46-52,58-64,70-76,82-99%24", MAX);
    assertEquals(39, r.indices().size());
    assertEquals(24, r.slotLimit());
    assertEquals(46, r.indices().get(0));
    assertEquals(52, r.indices().get(6));
    assertEquals(58, r.indices().get(7));
    assertEquals(99, r.indices().get(38));
  }

  @Test
  void indicesAreSortedAndDistinct() {
    assertEquals(List.of(1, 2, 3, 7), ArrayRequest.parse("7,3,1-3,2", MAX).indices());
  }

  @Test
  void blanksAroundTheWholeRequestAreIgnored() {
    assertEquals(List.of(1, 2), ArrayRequest.parse(" 1-2 ", MAX).indices());
  }

  @Test
  void degenerateRange() {
    assertEquals(List.of(3), ArrayRequest.parse("3-3", MAX).indices());
  }

  @Test
  void exactlyMaxSizeIsAccepted() {
    assertEquals(range(1, 10), ArrayRequest.parse("1-10", 10).indices());
  }

  @Test
  void moreThanMaxSizeIsRejected() {
    BadValueException e =
        assertThrows(BadValueException.class, () -> ArrayRequest.parse("1-11", 10));
    assertEquals(
        "Bad Job Array Request '1-11': more than max_job_array_size (10) subjobs"
            + " (use e.g. 1-10, 1,5,7-9, 1-9:2 or 1-100%5)",
        e.getMessage());
  }

  @Test
  void maxSizeCountsAcrossItems() {
    assertThrows(BadValueException.class, () -> ArrayRequest.parse("1-5,11-16", 10));
  }

  @Test
  void overlappingItemsCountOnce() {
    // 10 distinct subjobs, however often an index is repeated
    assertEquals(range(1, 10), ArrayRequest.parse("1-10,5-10", 10).indices());
    assertEquals(List.of(1), ArrayRequest.parse("1,1,1", 1).indices());
    assertThrows(BadValueException.class, () -> ArrayRequest.parse("1-10,5-11", 10));
  }

  @Test
  void hugeRangeIsRejectedBeforeItIsExpanded() {
    BadValueException e =
        assertThrows(BadValueException.class, () -> ArrayRequest.parse("0-2147483647", MAX));
    assertEquals(
        "Bad Job Array Request '0-2147483647': more than max_job_array_size (10000) subjobs"
            + " (use e.g. 1-10, 1,5,7-9, 1-9:2 or 1-100%5)",
        e.getMessage());
  }

  @Test
  void largestIntIndexDoesNotWrapAround() {
    assertEquals(List.of(Integer.MAX_VALUE), ArrayRequest.parse("2147483647", MAX).indices());
    assertEquals(
        List.of(Integer.MAX_VALUE - 1, Integer.MAX_VALUE),
        ArrayRequest.parse("2147483646-2147483647", Integer.MAX_VALUE).indices());
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      value = {
        // corpus 11: Moab's bracket form
        "[0-8]%9 | '[0' is not a non-negative number",
        "[0-8] | '[0' is not a non-negative number",
        "'' | '' is not a non-negative number",
        "%4 | '' is not a non-negative number",
        "1,,2 | '' is not a non-negative number",
        "1, | '' is not a non-negative number",
        "-1 | '-1' is not a non-negative number",
        "1- | '' is not a non-negative number",
        "1--5 | '-5' is not a non-negative number",
        "1-5-7 | '5-7' is not a non-negative number",
        "a-b | 'a' is not a non-negative number",
        "1 - 4 | '1 ' is not a non-negative number",
        "5:2 | '5:2' is not a non-negative number",
        "1-10: | '' is not a non-negative number",
        "1-10:x | 'x' is not a non-negative number",
        "1-10:0 | the step after : in 1-10:0 must be at least 1",
        "1-10:2:3 | '2:3' is not a non-negative number",
        "5-3 | range 5-3 runs backwards",
        "1-4% | '' is not a non-negative number",
        "1-4%x | 'x' is not a non-negative number",
        "1-4%0 | the slot limit after % must be at least 1",
        "1-4%-2 | '-2' is not a non-negative number",
        "1-4%2%3 | '2%3' is not a non-negative number",
        "99999999999 | '99999999999' is too large",
        "1-4%99999999999 | '99999999999' is too large",
      })
  void rejectsBadRequestsNamingThem(String text, String why) {
    BadValueException e =
        assertThrows(BadValueException.class, () -> ArrayRequest.parse(text, MAX));
    assertEquals(
        "Bad Job Array Request '"
            + text
            + "': "
            + why
            + " (use e.g. 1-10, 1,5,7-9, 1-9:2 or 1-100%5)",
        e.getMessage());
  }

  @Test
  void aRangeTakesAStepAsSlurmsArraysDo() {
    assertEquals(List.of(1, 3, 5, 7, 9), ArrayRequest.parse("1-10:2", MAX).indices());
    assertEquals(
        new ArrayRequest(List.of(0, 4, 8, 12, 20), 2), ArrayRequest.parse("0-15:4,20%2", MAX));
    assertEquals(List.of(3), ArrayRequest.parse("3-5:7", MAX).indices());
  }

  @Test
  void aSteppedRangeCountsOnlyTheIndicesItAdds() {
    assertEquals(5, ArrayRequest.parse("0-9:2,0-8:2", 5).indices().size());
    assertThrows(BadValueException.class, () -> ArrayRequest.parse("0-10:2", 5));
    assertThrows(BadValueException.class, () -> ArrayRequest.parse("0-2147483647:2", MAX));
  }

  @Test
  void indicesAreImmutable() {
    List<Integer> indices = ArrayRequest.parse("1-2", MAX).indices();
    assertThrows(UnsupportedOperationException.class, () -> indices.add(3));
  }
}
