package dev.berth.core;

/**
 * Characters that act on a terminal or on the shape of text instead of showing as themselves: the
 * C0 and C1 control characters (NUL, newline, ESC, ... U+0000-U+001F, U+007F-U+009F), the Unicode
 * line and paragraph separators, and the bidirectional overrides and isolates that reorder what
 * follows them. The server refuses them in every value a user or administrator sets, and every
 * command escapes them in what it prints, so no value can forge a line or send a terminal escape to
 * whoever reads it (root's {@code qstat -f} included).
 *
 * <p>The escape is one-way, for reading: {@code \n}, {@code \r} and {@code \t} as in C, {@code
 * \xHH} for the other characters up to U+00FF, and a backslash, {@code u} and four hex digits
 * above. Backslashes are left as they are (Torque prints {@code \,} inside Variable_List), so an
 * escaped text is not a quoting scheme, and escaping it again changes nothing.
 */
public final class ControlCharacters {
  private ControlCharacters() {}

  public static boolean is(char c) {
    return Character.isISOControl(c)
        || c == '\u2028'
        || c == '\u2029'
        || (c >= '\u202a' && c <= '\u202e')
        || (c >= '\u2066' && c <= '\u2069');
  }

  /** The index of the first control character in {@code text}, or -1 if it has none. */
  public static int find(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (is(text.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  /** {@code text} with each control character written as its escape. */
  public static String escape(String text) {
    int first = find(text);
    if (first < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 8).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      if (is(c)) {
        out.append(escape(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** The escape of one control character: {@code \n}, {@code \x1b}, ... */
  public static String escape(char c) {
    return switch (c) {
      case '\n' -> "\\n";
      case '\r' -> "\\r";
      case '\t' -> "\\t";
      default -> c <= 0xff ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c);
    };
  }
}
