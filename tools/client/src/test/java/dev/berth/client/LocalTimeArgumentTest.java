package dev.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** "Now" is Tue 2024-12-31 23:30 in America/New_York (04:30 UTC on New Year's Day). */
class LocalTimeArgumentTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2025-01-01T04:30:00Z"), ZoneId.of("America/New_York"));

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
    "2359, 2025-01-01T04:59:00Z", // still ahead today, in the clock's zone
    "2300, 2025-01-02T04:00:00Z", // passed: tomorrow, in the next year
    "311200, 2025-01-31T17:00:00Z", // day 31 passed this month: next month
    "12312330.15, 2025-01-01T04:30:15Z", // MMDD today, a little ahead by its seconds
    "01010000, 2025-01-01T05:00:00Z", // MMDD passed this year: next year
    "202406011200, 2024-06-01T16:00:00Z", // a full date keeps its own (summer) offset
    "6801010000, 2068-01-01T05:00:00Z", // YY 00-68 is 20YY
  })
  void fillsInLeftOutPartsFromTheClock(String text, String expected) throws Exception {
    assertEquals(Instant.parse(expected).getEpochSecond(), LocalTimeArgument.parse(text, CLOCK));
  }

  @ParameterizedTest
  @ValueSource(strings = {"930", "12:30", "2359.5", "now"})
  void theReasonForAMalformedValueShowsTheForm(String text) {
    BadArgumentException e =
        assertThrows(BadArgumentException.class, () -> LocalTimeArgument.parse(text, CLOCK));
    assertEquals("expected [[[[CC]YY]MM]DD]hhmm[.SS], e.g. 202309220900 or 0930", e.getMessage());
  }

  @Test
  void anImpossibleDateIsRefused() {
    BadArgumentException e =
        assertThrows(BadArgumentException.class, () -> LocalTimeArgument.parse("2460", CLOCK));
    assertEquals("no such date or time", e.getMessage());
    assertThrows(BadArgumentException.class, () -> LocalTimeArgument.parse("02301200", CLOCK));
  }
}
