package dev.berth.core;

import java.util.Locale;

/**
 * A host name pattern as Torque's ACLs and {@code $usecp} read them: without regard to case, {@code
 * *} stands for any run of characters ({@code *.example.org}, {@code *}) and {@code [N-M]} for a
 * number from N to M ({@code node[1-64]}); anything else matches itself.
 */
public final class HostPattern {
  private HostPattern() {}

  public static boolean matches(String pattern, String host) {
    return match(pattern.toLowerCase(Locale.ROOT), 0, host.toLowerCase(Locale.ROOT), 0);
  }

  private static boolean match(String p, int pi, String h, int hi) {
    if (pi == p.length()) {
      return hi == h.length();
    }
    char c = p.charAt(pi);
    if (c == '*') {
      for (int from = hi; from <= h.length(); from++) {
        if (match(p, pi + 1, h, from)) {
          return true;
        }
      }
      return false;
    }
    if (c == '[') {
      return range(p, pi, h, hi);
    }
    return hi < h.length() && h.charAt(hi) == c && match(p, pi + 1, h, hi + 1);
  }

  /** {@code [N-M]} at {@code pi}: the digits at {@code hi} must be a number from N to M. */
  private static boolean range(String p, int pi, String h, int hi) {
    int dash = p.indexOf('-', pi);
    int close = p.indexOf(']', pi);
    if (dash < 0 || close < dash) {
      return hi < h.length() && h.charAt(hi) == '[' && match(p, pi + 1, h, hi + 1);
    }
    int end = hi;
    while (end < h.length() && h.charAt(end) >= '0' && h.charAt(end) <= '9') {
      end++;
    }
    try {
      long low = Long.parseLong(p.substring(pi + 1, dash));
      long high = Long.parseLong(p.substring(dash + 1, close));
      long n = Long.parseLong(h.substring(hi, end));
      return n >= low && n <= high && match(p, close + 1, h, end);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
