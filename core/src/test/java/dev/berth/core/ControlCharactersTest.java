package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What counts as a control character, and how one is shown. */
class ControlCharactersTest {
  @Test
  void c0C1DelSeparatorsAndBidiOverridesAreControlCharacters() {
    for (char c : new char[] {0, '\n', '\r', '\t', 0x1b, 0x7f, 0x85, 0x9b, '\u2028', '\u2029'}) {
      assertTrue(ControlCharacters.is(c), Integer.toHexString(c));
    }
    for (char c = '\u202a'; c <= '\u202e'; c++) {
      assertTrue(ControlCharacters.is(c), Integer.toHexString(c));
    }
    for (char c = '\u2066'; c <= '\u2069'; c++) {
      assertTrue(ControlCharacters.is(c), Integer.toHexString(c));
    }
  }

  @Test
  void printableTextOfAnyScriptIsNot() {
    for (String s : new String[] {"train-01", "a b", "Müller", "東京", "x\\,y", "\u00a0", "é"}) {
      assertEquals(-1, ControlCharacters.find(s), s);
    }
    assertFalse(ControlCharacters.is('\u200e'), "a direction mark reorders nothing");
  }

  @Test
  void findGivesTheFirstOne() {
    assertEquals(3, ControlCharacters.find("abc\u001b[2Jx\n"));
    assertEquals(0, ControlCharacters.find("\u0000"));
  }

  @Test
  void escapesAreCStyleAndLeaveNoControlCharacterBehind() {
    assertEquals("a\\nb\\tc\\rd", ControlCharacters.escape("a\nb\tc\rd"));
    assertEquals(
        "\\x1b[2J\\x00\\x7f\\x9b", ControlCharacters.escape("\u001b[2J\u0000\u007f\u009b"));
    assertEquals("evil\\u202etxt.sh", ControlCharacters.escape("evil\u202etxt.sh"));
    String all = new StringBuilder().append((char) 0).append("\u2029\u2066\u0085").toString();
    assertEquals(-1, ControlCharacters.find(ControlCharacters.escape(all)));
  }

  @Test
  void backslashesStayAndEscapingTwiceChangesNothing() {
    String once = ControlCharacters.escape("A=x\\,y\n");
    assertEquals("A=x\\,y\\n", once);
    assertEquals(once, ControlCharacters.escape(once));
    String plain = "nothing to do";
    assertSame(plain, ControlCharacters.escape(plain));
  }
}
