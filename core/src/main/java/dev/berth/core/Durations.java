package dev.berth.core;

/**
 * Torque's time values (walltime, cput): {@code SS}, {@code MM:SS}, {@code HH:MM:SS} or {@code
 * DD:HH:MM:SS}, with an optional {@code .mmm} on the last field that rounds at 500 ms. Fields are
 * not range-checked ({@code 0:120:00} is two hours), exactly as Torque 6 reads them.
 */
public final class Durations {
  private static final long[] UNITS = {1, 60, 3600, 86400};

  private Durations() {}

  /** Seconds in {@code text}; throws {@link BadValueException} naming the problem. */
  public static long parseSeconds(String text) {
    String value = text.trim();
    if (value.isEmpty()) {
      throw new BadValueException("empty time value; expected [[[DD:]HH:]MM:]SS");
    }
    String[] fields = value.split(":", -1);
    if (fields.length > UNITS.length) {
      throw new BadValueException(
          "time value '" + text + "' has too many fields; expected [[[DD:]HH:]MM:]SS");
    }
    long seconds = 0;
    try {
      for (int i = 0; i < fields.length; i++) {
        boolean last = i == fields.length - 1;
        long unit = UNITS[fields.length - 1 - i];
        seconds = Math.addExact(seconds, Math.multiplyExact(field(text, fields[i], last), unit));
      }
    } catch (ArithmeticException e) {
      throw new BadValueException("time value '" + text + "' is too large");
    }
    return seconds;
  }

  private static long field(String text, String field, boolean last) {
    String whole = field;
    boolean roundUp = false;
    int dot = field.indexOf('.');
    if (dot >= 0) {
      if (!last) {
        throw new BadValueException(
            "time value '" + text + "': only the seconds field may have a fraction");
      }
      whole = field.substring(0, dot);
      String fraction = field.substring(dot + 1);
      if (!Ascii.allDigits(fraction)) {
        throw new BadValueException("time value '" + text + "' has a malformed fraction");
      }
      roundUp = !fraction.isEmpty() && fraction.charAt(0) >= '5';
    }
    if (whole.isEmpty() && dot < 0) {
      throw new BadValueException("time value '" + text + "' has an empty field");
    }
    if (!Ascii.allDigits(whole)) {
      throw new BadValueException(
          "time value '" + text + "' is not [[[DD:]HH:]MM:]SS (field '" + field + "')");
    }
    try {
      long n = whole.isEmpty() ? 0 : Long.parseLong(whole);
      return roundUp ? Math.addExact(n, 1) : n;
    } catch (NumberFormatException e) {
      throw new BadValueException("time value '" + text + "' is too large");
    }
  }

  /**
   * {@code HH:MM:SS} with as many hour digits as needed, as qstat prints times. By hand rather than
   * with String.format, which took most of a {@code qstat} of many jobs.
   */
  public static String format(long seconds) {
    long s = Math.max(0, seconds);
    StringBuilder text = new StringBuilder(12);
    twoDigits(text, s / 3600).append(':');
    twoDigits(text, (s / 60) % 60).append(':');
    return twoDigits(text, s % 60).toString();
  }

  private static StringBuilder twoDigits(StringBuilder text, long n) {
    return (n < 10 ? text.append('0') : text).append(n);
  }
}
