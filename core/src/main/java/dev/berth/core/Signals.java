package dev.berth.core;

import java.util.Locale;
import java.util.Map;

/** Signal names and numbers on Linux x86-64, for qsig and the moms. */
public final class Signals {
  public static final int SIGHUP = 1;
  public static final int SIGKILL = 9;
  public static final int SIGTERM = 15;

  private static final Map<String, Integer> NUMBERS =
      Map.ofEntries(
          Map.entry("HUP", 1),
          Map.entry("INT", 2),
          Map.entry("QUIT", 3),
          Map.entry("ILL", 4),
          Map.entry("TRAP", 5),
          Map.entry("ABRT", 6),
          Map.entry("BUS", 7),
          Map.entry("FPE", 8),
          Map.entry("KILL", 9),
          Map.entry("USR1", 10),
          Map.entry("SEGV", 11),
          Map.entry("USR2", 12),
          Map.entry("PIPE", 13),
          Map.entry("ALRM", 14),
          Map.entry("TERM", 15),
          Map.entry("CHLD", 17),
          Map.entry("CONT", 18),
          Map.entry("STOP", 19),
          Map.entry("TSTP", 20),
          Map.entry("TTIN", 21),
          Map.entry("TTOU", 22),
          Map.entry("URG", 23),
          Map.entry("XCPU", 24),
          Map.entry("XFSZ", 25),
          Map.entry("VTALRM", 26),
          Map.entry("PROF", 27),
          Map.entry("WINCH", 28),
          Map.entry("IO", 29),
          Map.entry("PWR", 30),
          Map.entry("SYS", 31));

  private Signals() {}

  /**
   * The number for {@code SIGTERM}, {@code TERM}, {@code term} or {@code 15}; qsig's {@code
   * suspend} and {@code resume} are SIGSTOP and SIGCONT.
   */
  public static int parse(String text) {
    String name = text.trim().toUpperCase(Locale.ROOT);
    if (!name.isEmpty() && Ascii.allDigits(name)) {
      int n;
      try {
        n = Integer.parseInt(name);
      } catch (NumberFormatException e) {
        n = -1; // more digits than an int holds: out of range like any other
      }
      if (n >= 1 && n <= 64) {
        return n;
      }
      throw new BadValueException("signal number " + text + " is out of range 1-64");
    }
    switch (name) {
      case "SUSPEND":
        return NUMBERS.get("STOP");
      case "RESUME":
        return NUMBERS.get("CONT");
      default:
        break;
    }
    Integer n = NUMBERS.get(name.startsWith("SIG") ? name.substring(3) : name);
    if (n == null) {
      throw new BadValueException("unknown signal '" + text + "'");
    }
    return n;
  }
}
