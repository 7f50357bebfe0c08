package dev.berth.server.command;

import dev.berth.core.HostPattern;
import java.util.List;

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
        && (at < 0 || HostPattern.matches(pattern.substring(at + 1), caller.host()));
  }
}
