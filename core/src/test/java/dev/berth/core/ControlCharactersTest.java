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
    assertFalse(ControlCharacters.is('\u200e'), "a direction mark is no control character");
    for (String s : new String[] {"train-01", "Müller", "東京", "\u00a0", "😀", "\u0645\u06cc"}) {
      assertEquals(-1, ControlCharacters.findFormat(s), s);
    }
  }

  @Test
  void invisibleFormattingCharactersAreUnicodeCategoryCf() {
    for (int cp :
        new int[] {
          0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x061c, 0xfeff, 0x00ad, 0x2060, 0x202e, 0x2066,
          0xe0001, 0xe0041, 0xe007f
        }) {
      assertTrue(ControlCharacters.isFormat(cp), ControlCharacters.name(cp));
    }
    assertFalse(ControlCharacters.isFormat('a'));
    assertFalse(ControlCharacters.isFormat(0x1f600), "an emoji shows as itself");
    assertEquals("U+200E", ControlCharacters.name(0x200e));
    assertEquals("U+E0001", ControlCharacters.name(0xe0001));
  }

  @Test
  void findFormatGivesWhereTheFirstOneStartsBeyondTheBmpToo() {
    assertEquals(3, ControlCharacters.findFormat("abc\u200bd"));
    String tag = new String(Character.toChars(0xe0041));
    assertEquals(2, ControlCharacters.findFormat("😀" + tag + "x"), "after a surrogate pair");
    assertEquals(-1, ControlCharacters.findFormat("plain"));
  }

  @Test
  void formattingCharactersAreEscapedToo() {
    String tag = new String(Character.toChars(0xe0041));
    assertEquals("ad\\u200bmin", ControlCharacters.escape("ad\u200bmin"));
    assertEquals("x\\U000e0041y😀", ControlCharacters.escape("x" + tag + "y😀"));
    assertEquals("\\u202e", ControlCharacters.escape("\u202e"), "a bidi override as before");
    String once = ControlCharacters.escape("a\u200e\nb\ufeff");
    assertEquals("a\\u200e\\nb\\ufeff", once);
    assertEquals(once, ControlCharacters.escape(once));
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
