package dev.berth.daemon.image;

import java.util.Locale;

/** Byte counts for people: {@code 512 B}, {@code 1.5 KiB}, {@code 64 GiB}. */
final class HumanBytes {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private HumanBytes() {}

  static String of(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    int unit = 0;
    double value = bytes;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    String number = String.format(Locale.ROOT, "%.1f", value);
    if (number.endsWith(".0")) {
      number = number.substring(0, number.length() - 2);
    }
    return number + " " + UNITS[unit];
  }
}
