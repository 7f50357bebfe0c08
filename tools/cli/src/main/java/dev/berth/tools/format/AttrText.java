package dev.berth.tools.format;

import dev.berth.core.ControlCharacters;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code qstat -f} body: {@code " name = value"} lines folded the way Torque's {@code prt_attr}
 * folds them. The value is cut at commas (empty pieces dropped, as {@code strtok} does); a piece
 * that fits before column {@code linesize} (77) follows on the same line, one that does not starts
 * a new line indented by a tab (unless it is the first piece) and is then broken every time the
 * column count passes {@code linesize}, restarting at 8. qstat -1 sets {@code linesize} to 65536,
 * which turns folding off.
 */
public final class AttrText {
  public static final int LINESIZE = 77;
  public static final int NO_FOLD = 65536;

  private AttrText() {}

  /**
   * One attribute line (or folded lines) with its final newline. Names and values are shown with
   * their control characters escaped, so a value cannot forge a line of its own.
   */
  public static String line(Attr attr, ZoneId zone, int linesize) {
    StringBuilder out = new StringBuilder();
    String name = ControlCharacters.escape(attr.name());
    String resource = attr.resource() == null ? null : ControlCharacters.escape(attr.resource());
    if ("Walltime".equals(attr.name()) && attr.value().startsWith("-")) {
      resource = "Exceeded";
    }
    if (attr.kind() == Attr.Kind.TIME) {
      // Torque passes ctime()'s string, newline included, and adds no newline of its own.
      fold(out, name, resource, CTime.format(Long.parseLong(attr.value()), zone) + "\n", linesize);
    } else {
      fold(out, name, resource, ControlCharacters.escape(attr.value()), linesize);
      out.append('\n');
    }
    return out.toString();
  }

  /** A block: the title line, each attribute, then an empty line. */
  public static String block(String title, List<Attr> attrs, ZoneId zone, int linesize) {
    StringBuilder out = new StringBuilder(ControlCharacters.escape(title)).append('\n');
    for (Attr attr : attrs) {
      out.append(line(attr, zone, linesize));
    }
    return out.append('\n').toString();
  }

  static void fold(StringBuilder out, String name, String resource, String value, int linesize) {
    int start = name.length() + 7; // 4 blanks + " = "
    out.append("    ").append(name);
    if (resource != null) {
      start += resource.length() + 1;
      out.append('.').append(resource);
    }
    out.append(" = ");
    List<String> pieces = pieces(value);
    boolean first = true;
    for (int p = 0; p < pieces.size(); p++) {
      String piece = pieces.get(p);
      if (piece.length() + start < linesize) {
        out.append(piece);
        start += piece.length();
      } else {
        if (!first) {
          out.append("\n\t");
          start = 9;
        }
        for (int i = 0; i < piece.length(); i++) {
          out.append(piece.charAt(i));
          if (++start > linesize) {
            start = 8;
            out.append("\n\t");
          }
        }
      }
      if (p + 1 < pieces.size()) {
        first = false;
        out.append(',');
      }
    }
  }

  private static List<String> pieces(String value) {
    List<String> pieces = new ArrayList<>();
    int from = 0;
    while (from <= value.length()) {
      int comma = value.indexOf(',', from);
      int end = comma < 0 ? value.length() : comma;
      if (end > from) {
        pieces.add(value.substring(from, end));
      }
      if (comma < 0) {
        break;
      }
      from = comma + 1;
    }
    return pieces;
  }
}
