package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** PBS values are ASCII: digits of other scripts are not numbers here (as in Torque). */
class AsciiOnlyTest {
  private static final String ARABIC_INDIC_12 = "\u0661\u0662";

  @Test
  void digitsOfOtherScriptsAreRefused() {
    assertThrows(BadValueException.class, () -> Durations.parseSeconds(ARABIC_INDIC_12 + ":00"));
    assertThrows(BadValueException.class, () -> Sizes.parse(ARABIC_INDIC_12 + "gb"));
    assertThrows(BadValueException.class, () -> ArrayRequest.parse(ARABIC_INDIC_12, 100));
    assertThrows(BadValueException.class, () -> Signals.parse(ARABIC_INDIC_12));
    assertThrows(BadValueException.class, () -> NodeSpec.parse(ARABIC_INDIC_12 + ":ppn=2"));
  }

  @Test
  void leadingZerosNameTheSameJob() {
    assertEquals("123.srv", JobIds.canonical("0123", "srv"));
    assertEquals("123[7].srv", JobIds.canonical("123[07]", "srv"));
    assertEquals("0.srv", JobIds.canonical("000", "srv"));
    assertEquals("5[].srv", JobIds.canonical("05[]", "srv"));
  }
}
