package dev.berth.tools.qstat;

import dev.berth.core.BadValueException;
import dev.berth.core.Sizes;

/** qstat -G and -M: memory columns in gigabytes or megawords, rounded up, as Torque's cnv_size. */
public enum SizeUnit {
  /** Values as the job gave them. */
  AS_GIVEN(0, ""),
  /** {@code -G}. */
  GB(30, "gb"),
  /** {@code -M}: 8-byte megawords. */
  MW(23, "mw");

  private final int shift;
  private final String suffix;

  SizeUnit(int shift, String suffix) {
    this.shift = shift;
    this.suffix = suffix;
  }

  public String convert(String value) {
    if (this == AS_GIVEN) {
      return value;
    }
    long bytes;
    try {
      bytes = Sizes.parseBytes(value);
    } catch (BadValueException e) {
      return value;
    }
    long unit = 1L << shift;
    return ((bytes + unit - 1) / unit) + suffix;
  }
}
