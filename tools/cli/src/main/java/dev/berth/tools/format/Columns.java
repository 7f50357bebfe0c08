package dev.berth.tools.format;

import dev.berth.core.ControlCharacters;

/**
 * printf's {@code %-W.Ps} and {@code %W.Ps} for Torque's fixed-width tables: cut to a precision,
 * then pad to a width. A width is a minimum, so an uncut value longer than it widens its column,
 * exactly as in C. Values are shown with their control characters escaped ({@link
 * ControlCharacters}), so no cell can break a row or reach the terminal as an escape.
 */
public final class Columns {
  private Columns() {}

  /** {@code %-Ws}. */
  public static String left(String value, int width) {
    return pad(value, width, true);
  }

  /** {@code %-W.Ps}. */
  public static String left(String value, int width, int precision) {
    return pad(cut(value, precision), width, true);
  }

  /** {@code %Ws}. */
  public static String right(String value, int width) {
    return pad(value, width, false);
  }

  /** {@code %W.Ps}. */
  public static String right(String value, int width, int precision) {
    return pad(cut(value, precision), width, false);
  }

  /**
   * A table line: each value padded to its width (negative widths pad on the right, as {@code
   * %-Ws}), separated by single blanks, ending with a newline.
   */
  public static String line(int[] widths, String... values) {
    if (widths.length != values.length) {
      throw new IllegalArgumentException(
          widths.length + " widths for " + values.length + " values");
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        out.append(' ');
      }
      int width = widths[i];
      out.append(width < 0 ? left(values[i], -width) : right(values[i], width));
    }
    return out.append('\n').toString();
  }

  /** The first {@code max} characters of the value as shown. */
  public static String cut(String value, int max) {
    String shown = ControlCharacters.escape(value);
    return shown.length() <= max ? shown : shown.substring(0, max);
  }

  private static String pad(String raw, int width, boolean left) {
    String value = ControlCharacters.escape(raw);
    if (value.length() >= width) {
      return value;
    }
    String blanks = " ".repeat(width - value.length());
    return left ? value + blanks : blanks + value;
  }
}
