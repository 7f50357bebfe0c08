package dev.berth.tools.qsub;

import java.util.OptionalLong;

/** The values of sbatch's options that Slurm reads its own way: time limits and memory sizes. */
final class SlurmValues {
  private SlurmValues() {}

  /**
   * A time limit ({@code -t}) in seconds, rounded up to whole minutes as Slurm's are: {@code M},
   * {@code M:S}, {@code H:M:S}, {@code D-H}, {@code D-H:M}, {@code D-H:M:S}; empty for no limit
   * ({@code UNLIMITED}, {@code INFINITE}, {@code -1}, {@code 0}).
   *
   * @throws SbatchException {@code Invalid --time specification}, exit 255
   */
  static OptionalLong timeLimit(String text) throws SbatchException {
    String t = text.strip();
    if (t.equalsIgnoreCase("-1")
        || t.equalsIgnoreCase("INFINITE")
        || t.equalsIgnoreCase("UNLIMITED")) {
      return OptionalLong.empty();
    }
    if (!validTime(t)) {
      throw SbatchException.badOption("Invalid --time specification");
    }
    long seconds;
    try {
      int dash = t.indexOf('-');
      if (dash >= 0) {
        long[] hms = fields(t.substring(dash + 1), 3);
        seconds = number(t.substring(0, dash)) * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
      } else {
        long[] f = fields(t, 3);
        int parts = t.split(":", -1).length;
        seconds = parts == 3 ? f[0] * 3600 + f[1] * 60 + f[2] : f[0] * 60 + f[1];
      }
    } catch (NumberFormatException | ArithmeticException e) {
      throw SbatchException.badOption("Invalid --time specification");
    }
    long minutes = (seconds + 59) / 60;
    return minutes == 0 ? OptionalLong.empty() : OptionalLong.of(minutes * 60);
  }

  /** Slurm's _is_valid_timespec: digits with at most one dash before at most two colons. */
  private static boolean validTime(String s) {
    int groups = 0;
    int dashes = 0;
    int colons = 0;
    boolean inDigits = false;
    for (char c : s.toCharArray()) {
      if (c >= '0' && c <= '9') {
        if (!inDigits) {
          groups++;
          inDigits = true;
        }
      } else if (c == '-') {
        inDigits = false;
        dashes++;
        if (colons > 0) {
          return false;
        }
      } else if (c == ':') {
        inDigits = false;
        colons++;
      } else {
        return false;
      }
    }
    if (groups == 0 || dashes > 1 || colons > 2) {
      return false;
    }
    return dashes == 0 ? colons == 0 || groups >= colons + 1 : colons == 0 || groups >= colons + 2;
  }

  /** Up to {@code n} colon-separated numbers, missing ones 0 (sscanf stops at what is missing). */
  private static long[] fields(String s, int n) {
    long[] f = new long[n];
    String[] parts = s.isEmpty() ? new String[0] : s.split(":", -1);
    for (int i = 0; i < parts.length && i < n; i++) {
      if (parts[i].isEmpty()) {
        break;
      }
      f[i] = number(parts[i]);
    }
    return f;
  }

  private static long number(String digits) {
    if (digits.length() > 9) {
      throw new ArithmeticException("too large");
    }
    return digits.isEmpty() ? 0 : Long.parseLong(digits);
  }

  /**
   * A memory size in MiB as Slurm reads {@code --mem} and {@code --mem-per-cpu}: a number of
   * megabytes, or with {@code K}, {@code M}, {@code G} or {@code T} (kilobytes round up to a
   * megabyte), each optionally followed by {@code B}.
   *
   * @throws SbatchException {@code Invalid --OPTION specification}, exit 255
   */
  static long megabytes(String option, String text) throws SbatchException {
    String t = text.strip().toUpperCase(java.util.Locale.ROOT);
    if (t.endsWith("B") && t.length() > 1 && !Character.isDigit(t.charAt(t.length() - 2))) {
      t = t.substring(0, t.length() - 1);
    }
    long unit = 1;
    char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
    int cut = 1;
    switch (last) {
      case 'K' -> unit = -1; // kilobytes: rounded up below
      case 'M' -> unit = 1;
      case 'G' -> unit = 1024;
      case 'T' -> unit = 1024 * 1024;
      default -> cut = 0;
    }
    String digits = t.substring(0, t.length() - cut);
    if (digits.isEmpty() || digits.length() > 12 || !digits.chars().allMatch(Character::isDigit)) {
      throw SbatchException.badOption("Invalid --" + option + " specification");
    }
    long n = Long.parseLong(digits);
    return unit == -1 ? (n + 1023) / 1024 : Math.multiplyExact(n, unit);
  }
}
