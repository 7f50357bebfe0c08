package dev.berth.security.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** One source gets its share and no more; all sources together get the total. */
class SourceSlotsTest {
  private final SourceSlots slots = new SourceSlots(5, 2);

  @Test
  void aSourceHoldsItsShareAndGetsMoreOnlyAsItGivesBack() {
    assertNull(slots.take("10.0.0.1"));
    assertNull(slots.take("10.0.0.1"));
    assertEquals(SourceSlots.Refusal.SOURCE, slots.take("10.0.0.1"));
    assertNull(slots.take("10.0.0.2"), "another source is not held back");
    slots.release("10.0.0.1");
    assertNull(slots.take("10.0.0.1"));
    assertEquals(3, slots.taken());
  }

  @Test
  void allSourcesTogetherGetTheTotal() {
    for (String s : new String[] {"a", "a", "b", "b", "c"}) {
      assertNull(slots.take(s));
    }
    assertEquals(SourceSlots.Refusal.ALL, slots.take("d"));
    slots.release("b");
    assertNull(slots.take("d"));
  }

  @Test
  void aSourceThatHoldsNothingIsForgotten() {
    slots.take("a");
    slots.release("a");
    assertEquals(0, slots.held("a"));
    assertEquals(0, slots.taken());
    assertThrows(IllegalStateException.class, () -> slots.release("a"));
  }
}
