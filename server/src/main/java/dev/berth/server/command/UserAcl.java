package dev.berth.server.command;

import java.util.List;
import java.util.Locale;

/**
 * A Torque user ACL ({@code acl_roots}, {@code managers}, {@code operators}): a comma list of
 * {@code [+|-]user[@host]} entries, read in order, the first that matches deciding. The user name
 * must match exactly; an entry without a host matches every host. A host matches without regard to
 * case, where {@code *} stands for any run of characters ({@code *.example.org}, {@code *}) and
 * {@code [N-M]} for a number from N to M ({@code node[1-64]}), as Torque's {@code user_match} and
 * {@code hacl_match} read them. An entry with {@code -} denies; a lone {@code +} or {@code -} makes
 * the default for callers no entry matches, which is otherwise to deny.
 */
final class UserAcl {
  private UserAcl() {}

  /** Whether the list {@code acl} (null or empty = nobody) admits {@code caller}. */
  static boolean admits(String acl, Caller caller) {
    if (acl == null) {
      return false;
    }
    boolean byDefault = false;
    List<String> entries = AttributeSpec.items(acl);
    for (String entry : entries) {
      boolean deny = entry.startsWith("-");
      String pattern = entry.startsWith("+") || deny ? entry.substring(1) : entry;
      if (pattern.isEmpty()) {
        byDefault = !deny;
      } else if (matches(pattern, caller)) {
        return !deny;
      }
    }
    return byDefault;
  }

  private static boolean matches(String pattern, Caller caller) {
    int at = pattern.indexOf('@');
    String user = at < 0 ? pattern : pattern.substring(0, at);
    return user.equals(caller.user())
        && (at < 0 || hostMatches(pattern.substring(at + 1), caller.host()));
  }

  static boolean hostMatches(String pattern, String host) {
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
