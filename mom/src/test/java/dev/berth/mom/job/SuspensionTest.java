package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A job launched at 1000 ms, suspended from 3000 to 8000 and from 10000 on. */
class SuspensionTest {
  static final long LAUNCHED = 1_000;

  @Test
  void aJobNeverSuspendedRanAllTheTimeSinceItsLaunch() {
    assertFalse(Suspension.NONE.suspended());
    assertEquals(0, Suspension.NONE.frozenMillis(5_000));
    assertEquals(4_000, Suspension.NONE.ranMillis(LAUNCHED, 5_000));
  }

  @Test
  void theFrozenTimeOfEverySuspensionIsLeftOutOfTheWalltime() {
    Suspension first = Suspension.NONE.begin(3_000);
    assertTrue(first.suspended());
    assertEquals(2_000, first.ranMillis(LAUNCHED, 3_000));
    assertEquals(2_000, first.ranMillis(LAUNCHED, 7_000), "no walltime passes while frozen");

    Suspension resumed = first.end(8_000);
    assertFalse(resumed.suspended());
    assertEquals(new Suspension(5_000, 0), resumed);
    assertEquals(3_000, resumed.ranMillis(LAUNCHED, 9_000));

    Suspension second = resumed.begin(10_000);
    assertEquals(6_000, second.frozenMillis(11_000), "the current suspension counts too");
    assertEquals(4_000, second.ranMillis(LAUNCHED, 11_000));
    assertEquals(4_000, second.end(12_000).ranMillis(LAUNCHED, 12_000));
  }

  @Test
  void aRepeatedOrderChangesNothing() {
    Suspension suspended = Suspension.NONE.begin(3_000);
    assertSame(suspended, suspended.begin(4_000), "it is frozen since the first order");
    Suspension resumed = suspended.end(8_000);
    assertSame(resumed, resumed.end(9_000));
    assertSame(Suspension.NONE, Suspension.NONE.end(2_000));
  }

  @Test
  void aClockStepBackNeverMakesTheWalltimeGrowOrGoNegative() {
    Suspension suspended = Suspension.NONE.begin(3_000);
    assertEquals(0, suspended.frozenMillis(2_500));
    assertEquals(0, Suspension.NONE.ranMillis(LAUNCHED, 500));
  }

  @Test
  void itsLineReadsBackAsItself() {
    Suspension s = new Suspension(5_000, 1_700_000_000_123L);
    assertEquals("5000 1700000000123", s.line());
    assertEquals(s, Suspension.parse(s.line() + "\n"));
    assertEquals(Suspension.NONE, Suspension.parse("0 0"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "5000", "5000 x", "1 2 3", "-1 0"})
  void aMalformedLineIsRefused(String line) {
    assertThrows(IllegalArgumentException.class, () -> Suspension.parse(line));
  }
}
