package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DurationsTest {

  @ParameterizedTest(name = "{0} is {1} s")
  @CsvSource({
    "0, 0",
    "300, 300", // a bare number is seconds (corpus 17), not minutes as in Slurm
    "252000, 252000",
    "10:00, 600",
    "1:30, 90",
    "01:00:00, 3600",
    "4:00:00, 14400",
    "12:00:00, 43200",
    "1:00:00:00, 86400", // 3 colons: days (corpus 18)
    "5:00:00:00, 432000",
    "2:03:04:05, 183845",
    "0:120:00, 7200", // fields are not range-checked (corpus 15)
    "00:60:00, 3600", // corpus 16
    "00:00:60, 60",
    "0:0:90, 90",
    "100:00:00, 360000",
    "007, 7",
  })
  void acceptsTorqueForms(String text, long seconds) {
    assertEquals(seconds, Durations.parseSeconds(text));
  }

  @ParameterizedTest(name = "{0} rounds to {1} s")
  @CsvSource({
    "1.4, 1",
    "1.499, 1",
    "1.5, 2",
    "1.500, 2",
    "1.999, 2",
    "1.05, 1", // .05 is 50 ms, not 500
    "1.0, 1",
    "1., 1",
    "0.5, 1",
    ".5, 1",
    "1:30.5, 91",
    "1:00:00.7, 3601",
    "1:00:00:00.5, 86401",
  })
  void roundsFractionAt500Milliseconds(String text, long seconds) {
    assertEquals(seconds, Durations.parseSeconds(text));
  }

  @Test
  void ignoresSurroundingBlanks() {
    assertEquals(3600, Durations.parseSeconds("  01:00:00 \t"));
  }

  @Test
  void rejectsEmptyValue() {
    BadValueException e = assertThrows(BadValueException.class, () -> Durations.parseSeconds(""));
    assertEquals("empty time value; expected [[[DD:]HH:]MM:]SS", e.getMessage());
    assertThrows(BadValueException.class, () -> Durations.parseSeconds("   "));
  }

  @Test
  void rejectsMoreThanFourFields() {
    BadValueException e =
        assertThrows(BadValueException.class, () -> Durations.parseSeconds("1:2:3:4:5"));
    assertEquals(
        "time value '1:2:3:4:5' has too many fields; expected [[[DD:]HH:]MM:]SS", e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "1h | time value '1h' is not [[[DD:]HH:]MM:]SS (field '1h')",
        "10m | time value '10m' is not [[[DD:]HH:]MM:]SS (field '10m')",
        "-5 | time value '-5' is not [[[DD:]HH:]MM:]SS (field '-5')",
        "+5 | time value '+5' is not [[[DD:]HH:]MM:]SS (field '+5')",
        "1:-5 | time value '1:-5' is not [[[DD:]HH:]MM:]SS (field '-5')",
        "1: 5 | time value '1: 5' is not [[[DD:]HH:]MM:]SS (field ' 5')",
        "1:00:00:00:00:00 | time value '1:00:00:00:00:00' has too many fields;"
            + " expected [[[DD:]HH:]MM:]SS",
        "1:: | time value '1::' has an empty field",
        ":30 | time value ':30' has an empty field",
        "1:30: | time value '1:30:' has an empty field",
        "1.5:00 | time value '1.5:00': only the seconds field may have a fraction",
        "1:30.5:00 | time value '1:30.5:00': only the seconds field may have a fraction",
        "1.5x | time value '1.5x' has a malformed fraction",
        "1.5.5 | time value '1.5.5' has a malformed fraction",
        "1.-5 | time value '1.-5' has a malformed fraction",
      })
  void rejectsBadValuesNamingThem(String text, String message) {
    BadValueException e = assertThrows(BadValueException.class, () -> Durations.parseSeconds(text));
    assertEquals(message, e.getMessage());
  }

  @Test
  void rejectsFieldTooLargeForALong() {
    BadValueException e =
        assertThrows(BadValueException.class, () -> Durations.parseSeconds("99999999999999999999"));
    assertEquals("time value '99999999999999999999' is too large", e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "9999999999999999:00:00", // hours × 3600 overflows
    "999999999999999:00:00:00", // days × 86400 overflows
    "9223372036854775807:00",
    "9223372036854775807.9", // rounding up overflows
    "9223372036854775807:9223372036854775807",
  })
  void overflowIsABadValueNotAnArithmeticException(String text) {
    BadValueException e = assertThrows(BadValueException.class, () -> Durations.parseSeconds(text));
    assertEquals("time value '" + text + "' is too large", e.getMessage());
  }

  @Test
  void largestValueThatFits() {
    assertEquals(Long.MAX_VALUE, Durations.parseSeconds("9223372036854775807"));
    assertEquals(Long.MAX_VALUE, Durations.parseSeconds("9223372036854775806.5"));
  }

  @ParameterizedTest(name = "{0} s prints {1}")
  @CsvSource({
    "0, 00:00:00",
    "1, 00:00:01",
    "59, 00:00:59",
    "60, 00:01:00",
    "3599, 00:59:59",
    "3600, 01:00:00",
    "3661, 01:01:01",
    "86400, 24:00:00",
    "360000, 100:00:00",
    "432000, 120:00:00",
    "-5, 00:00:00",
  })
  void formatsAsQstatPrints(long seconds, String text) {
    assertEquals(text, Durations.format(seconds));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"0:120:00, 02:00:00", "1:00:00:00, 24:00:00", "90, 00:01:30", "1:30.5, 00:01:31"})
  void normalizesThroughParseAndFormat(String text, String canonical) {
    assertEquals(canonical, Durations.format(Durations.parseSeconds(text)));
  }
}
