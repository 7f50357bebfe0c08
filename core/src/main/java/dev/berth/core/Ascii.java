package dev.berth.core;

/** ASCII-only character tests: PBS values are ASCII, and Java's isDigit accepts other scripts. */
final class Ascii {
  private Ascii() {}

  static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }

  static boolean allDigits(String s) {
    return s.chars().allMatch(Ascii::isDigit);
  }
}
