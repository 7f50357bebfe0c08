package dev.berth.tools.resv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.tools.testing.FakeCli;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** OpenPBS's short dates; "now" is Mon Nov 30 2026 10:00 UTC, its week Sun Nov 29 to Sat Dec 5. */
class ResvTableTest {
  private static final long HOUR = 3600;

  @ParameterizedTest(name = "{0} h from now: {1}")
  @CsvSource({
    "2, Today 12:00",
    "-1, Today 09:00",
    "-24, Sun 10:00",
    "130, Sat 20:00",
    "134, Sun Dec 06 00:00",
    "-35, Sat Nov 28 23:00",
    "1000, Mon Jan 11 2027 02:00",
  })
  void theFormDependsOnHowFarOffTheDateIs(long hours, String expected) {
    assertEquals(expected, ResvTable.when(FakeCli.NOW + hours * HOUR, FakeCli.NOW, ZoneOffset.UTC));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({"UTC, Today 23:30", "Asia/Tokyo, Tue 08:30"})
  void todayIsTheCallersDay(String zone, String expected) {
    assertEquals(
        expected, ResvTable.when(FakeCli.NOW + 13 * HOUR + 1800, FakeCli.NOW, ZoneId.of(zone)));
  }
}
