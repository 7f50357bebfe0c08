package dev.berth.core;

import java.util.Locale;

/**
 * Torque's size values (mem, pmem, vmem): a number, then an optional {@code k m g t p} and an
 * optional {@code b} (bytes) or {@code w} (8-byte words), case-insensitive, with 1024 multipliers.
 * A bare number is bytes.
 */
public final class Sizes {
  private static final String SCALES = "kmgtp";

  private Sizes() {}

  /** A size as Torque stores it: a count of units of 2^shift bytes (or words). */
  public record Size(long number, int shift, boolean words) {
    public long bytes() {
      long base = words ? 8 : 1;
      try {
        return Math.multiplyExact(Math.multiplyExact(number, 1L << shift), base);
      } catch (ArithmeticException e) {
        throw new BadValueException("size " + this + " is too large");
      }
    }

    /** Torque's canonical text: {@code 2gb}, {@code 5000mb}, {@code 1024b}. */
    @Override
    public String toString() {
      String scale = shift == 0 ? "" : String.valueOf(SCALES.charAt(shift / 10 - 1));
      return number + scale + (words ? "w" : "b");
    }
  }

  public static Size parse(String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    int digits = 0;
    while (digits < value.length() && Ascii.isDigit(value.charAt(digits))) {
      digits++;
    }
    if (digits == 0) {
      throw new BadValueException(
          "size '" + text + "' must start with a number (e.g. 512mb, 4gb, 1024kb)");
    }
    long number;
    try {
      number = Long.parseLong(value.substring(0, digits));
    } catch (NumberFormatException e) {
      throw new BadValueException("size '" + text + "' is too large");
    }
    String unit = value.substring(digits);
    int shift = 0;
    if (!unit.isEmpty() && SCALES.indexOf(unit.charAt(0)) >= 0) {
      shift = (SCALES.indexOf(unit.charAt(0)) + 1) * 10;
      unit = unit.substring(1);
    }
    boolean words = unit.equals("w");
    if (!unit.isEmpty() && !unit.equals("b") && !words) {
      throw new BadValueException(
          "size '" + text + "' has an unknown unit; use b, kb, mb, gb, tb, pb (or w for words)");
    }
    Size size = new Size(number, shift, words);
    size.bytes(); // overflow check
    return size;
  }

  public static long parseBytes(String text) {
    return parse(text).bytes();
  }

  /** Bytes as the largest exact Torque unit: 2147483648 is {@code 2gb}, 1536 is {@code 1536b}. */
  public static String format(long bytes) {
    if (bytes <= 0) {
      return "0b";
    }
    int shift = 0;
    long n = bytes;
    while (shift < 50 && n % 1024 == 0) {
      n /= 1024;
      shift += 10;
    }
    return new Size(n, shift, false).toString();
  }

  /**
   * Bytes for people to read, in the binary units of the limits' settings and messages: {@code 64
   * MiB}, {@code 1.5 MiB}, {@code 512 KiB}, {@code 100 bytes}.
   */
  public static String readable(long bytes) {
    if (bytes >= 1 << 20) {
      return bytes % (1 << 20) == 0
          ? (bytes >> 20) + " MiB"
          : String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
    }
    if (bytes >= 1 << 10) {
      return bytes % (1 << 10) == 0
          ? (bytes >> 10) + " KiB"
          : String.format(Locale.ROOT, "%.1f KiB", bytes / (double) (1 << 10));
    }
    return bytes + " bytes";
  }

  /** Bytes in kilobytes, as Torque prints resources_used.mem: {@code 12345kb}. */
  public static String formatKb(long bytes) {
    return ((bytes + 1023) / 1024) + "kb";
  }
}
