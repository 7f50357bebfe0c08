package dev.berth.tools.slurm;

import java.util.Locale;

/** Memory sizes as Slurm's commands print them (convert_num_unit, exact). */
public final class SlurmMemory {
  private static final String SUFFIXES = "MGTPE";

  private SlurmMemory() {}

  /**
   * {@code megabytes} in the largest unit that keeps it exact to a half: 1024 is {@code 1G}, 1536
   * {@code 1.50G}, 1000 {@code 1000M}; 0 is {@code 0}.
   */
  public static String of(long megabytes) {
    if (megabytes == 0) {
      return "0";
    }
    double value = megabytes;
    int unit = 0;
    while (value >= 1024 && value % 512 == 0 && unit + 1 < SUFFIXES.length()) {
      value /= 1024;
      unit++;
    }
    char suffix = SUFFIXES.charAt(unit);
    return value == Math.rint(value)
        ? (long) value + String.valueOf(suffix)
        : String.format(Locale.ROOT, "%.2f%c", value, suffix);
  }
}
