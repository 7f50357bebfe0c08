package dev.berth.core;

/**
 * Characters that act on a terminal or on the shape of text instead of showing as themselves: the
 * C0 and C1 control characters (NUL, newline, ESC, ... U+0000-U+001F, U+007F-U+009F), the Unicode
 * line and paragraph separators, and the bidirectional overrides and isolates that reorder what
 * follows them. The server refuses them in every value a user or administrator sets, and every
 * command escapes them in what it prints, so no value can forge a line or send a terminal escape to
 * whoever reads it (root's {@code qstat -f} included).
 *
 * <p>Beside them, the invisible formatting characters (Unicode category Cf: zero-width spaces and
 * joiners, the direction marks U+200E, U+200F and U+061C, the byte order mark U+FEFF, the tag
 * characters U+E0001-U+E007F, ...) show as nothing or change how their neighbours show, so that two
 * names that look the same differ. The server refuses them in names and free text; the commands
 * escape them too, for values that keep them (a job's environment) or were stored before.
 *
 * <p>The escape is one-way, for reading: {@code \n}, {@code \r} and {@code \t} as in C, {@code
 * \xHH} for the other characters up to U+00FF, a backslash, {@code u} and four hex digits above,
 * and a backslash, {@code U} and eight hex digits beyond U+FFFF. Backslashes are left as they are
 * (Torque prints {@code \,} inside Variable_List), so an escaped text is not a quoting scheme, and
 * escaping it again changes nothing.
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

  /** Whether {@code codePoint} is an invisible formatting character (Unicode category Cf). */
  public static boolean isFormat(int codePoint) {
    return Character.getType(codePoint) == Character.FORMAT;
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

  /**
   * The index of the first invisible formatting character in {@code text} (where its code point
   * starts), or -1 if it has none.
   */
  public static int findFormat(String text) {
    for (int i = 0; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      if (isFormat(codePoint)) {
        return i;
      }
      i += Character.charCount(codePoint);
    }
    return -1;
  }

  /** A code point as Unicode names it: {@code U+200E}, {@code U+E0041}. */
  public static String name(int codePoint) {
    return String.format("U+%04X", codePoint);
  }

  /** {@code text} with each control and invisible formatting character written as its escape. */
  public static String escape(String text) {
    int control = find(text);
    int format = findFormat(text);
    int first = control < 0 ? format : format < 0 ? control : Math.min(control, format);
    if (first < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 8).append(text, 0, first);
    for (int i = first; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      if (codePoint <= Character.MAX_VALUE && is((char) codePoint)) {
        out.append(escape((char) codePoint));
      } else if (isFormat(codePoint)) {
        out.append(
            codePoint <= Character.MAX_VALUE
                ? String.format("\\u%04x", codePoint)
                : String.format("\\U%08x", codePoint));
      } else {
        out.appendCodePoint(codePoint);
      }
      i += Character.charCount(codePoint);
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
