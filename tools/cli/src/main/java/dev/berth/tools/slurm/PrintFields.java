package dev.berth.tools.slurm;

import java.util.List;

/**
 * Columns as Slurm's print_fields prints them for sacct and sshare: each value in a column of its
 * width (negative: on the left), a value too long ending in {@code +} and a header name too long
 * simply cut, each followed by a space, under a header of the names and a line of dashes; or,
 * {@code -P}, the values joined by {@code |} ({@code -p}: each followed by one) under the names
 * alone.
 */
public final class PrintFields {
  /** The layout: {@code ""} columns, {@code "|"} for -P, {@code "|+"} for -p. */
  public static final String COLUMNS = "";

  public static final String PARSABLE2 = "|";
  public static final String PARSABLE = "|+";

  private PrintFields() {}

  /** The header lines: names, then dashes (only the names when parsable). */
  public static List<String> header(List<String> names, List<Integer> widths, String mode) {
    if (!mode.isEmpty()) {
      return List.of(join(names, mode));
    }
    StringBuilder line = new StringBuilder();
    StringBuilder dashes = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      int w = Math.abs(widths.get(i));
      String name = names.get(i).length() > w ? names.get(i).substring(0, w) : names.get(i);
      line.append(pad(name, widths.get(i))).append(' ');
      dashes.append("-".repeat(w)).append(' ');
    }
    return List.of(line.toString(), dashes.toString());
  }

  public static String row(List<String> values, List<Integer> widths, String mode) {
    if (!mode.isEmpty()) {
      return join(values, mode);
    }
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      int w = Math.abs(widths.get(i));
      String v = values.get(i);
      line.append(pad(v.length() > w ? v.substring(0, w - 1) + "+" : v, widths.get(i))).append(' ');
    }
    return line.toString();
  }

  private static String join(List<String> values, String mode) {
    return String.join("|", values) + (mode.equals(PARSABLE) ? "|" : "");
  }

  private static String pad(String v, int width) {
    String pad = " ".repeat(Math.abs(width) - v.length());
    return width < 0 ? v + pad : pad + v;
  }
}
