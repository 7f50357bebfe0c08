package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** qsub -a in local time (Europe/Zurich); "now" is 2024-03-15 10:00 CET. */
class ExecutionTimeTest {
  @ParameterizedTest(name = "-a {0} = {1}")
  @CsvSource({
    "202309220900, 2023-09-22T07:00:00Z", // full date, summer time (UTC+2), may be in the past
    "9912312359, 1999-12-31T22:59:00Z", // YY 69-99 is 19YY
    "2403161200, 2024-03-16T11:00:00Z", // YY 00-68 is 20YY
    "03161200, 2024-03-16T11:00:00Z", // MMDD still ahead this year
    "03141200, 2025-03-14T11:00:00Z", // MMDD passed: next year
    "161200, 2024-03-16T11:00:00Z", // DD ahead this month
    "141200, 2024-04-14T10:00:00Z", // DD passed: next month (now summer time)
    "1100, 2024-03-15T10:00:00Z", // hhmm ahead today
    "0930, 2024-03-16T08:30:00Z", // hhmm passed: tomorrow
    "1100.30, 2024-03-15T10:00:30Z", // seconds
  })
  void resolvesLikeTorque(String text, String expected) throws Exception {
    assertEquals(
        Instant.parse(expected).getEpochSecond(), ExecutionTime.parse(text, SubmitPlace.CLOCK));
  }

  @ParameterizedTest
  @ValueSource(strings = {"930", "2023-09-22", "12345", "1100.3", "tomorrow", ""})
  void malformedValuesAreRefused(String text) {
    QsubException e =
        assertThrows(QsubException.class, () -> ExecutionTime.parse(text, SubmitPlace.CLOCK));
    assertTrue(e.getMessage().contains("expected [[[[CC]YY]MM]DD]hhmm[.SS]"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"13011200", "2560", "02301200", "1160"})
  void impossibleDatesAreRefused(String text) {
    QsubException e =
        assertThrows(QsubException.class, () -> ExecutionTime.parse(text, SubmitPlace.CLOCK));
    assertEquals("-a " + text + ": no such date or time", e.getMessage());
  }

  @Test
  void sentAsEpochSeconds() throws Exception {
    JobOptions o = SubmitPlace.options("-a", "202309220900");
    assertEquals(
        Long.toString(Instant.parse("2023-09-22T07:00:00Z").getEpochSecond()),
        o.attributes().get("Execution_Time"));
  }
}
