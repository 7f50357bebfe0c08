package dev.berth.tools.help;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The user documentation's Markdown as text for a terminal, for what the pages use: paragraphs,
 * code blocks, tables and inline code, emphasis and links. Paragraphs are wrapped; a code block is
 * kept as written, indented; a table becomes one entry per row, its first column (an option) and
 * then its second (what it does) beside it or below it; further columns, which say how an option
 * travels to the server, are left to the full page.
 */
final class MarkdownText {
  static final int WIDTH = 79;
  private static final int INDENT = 2;
  private static final int TEXT_COLUMN = 24;

  private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");
  private static final Pattern STRONG = Pattern.compile("\\*\\*([^*]+)\\*\\*");
  private static final Pattern SEPARATOR_ROW = Pattern.compile("\\|[\\s\\-:|]+\\|?");

  private MarkdownText() {}

  /** {@code lines} of Markdown, as text. */
  static String render(List<String> lines) {
    StringBuilder out = new StringBuilder();
    List<String> paragraph = new ArrayList<>();
    boolean inCode = false;
    boolean tableHeader = false;
    for (String line : lines) {
      if (line.startsWith("```")) {
        flush(paragraph, out);
        inCode = !inCode;
        if (inCode) {
          blankLine(out);
        }
        continue;
      }
      if (inCode) {
        out.append(" ".repeat(INDENT)).append(line).append('\n');
        continue;
      }
      if (line.startsWith("|")) {
        flush(paragraph, out);
        if (!tableHeader && !SEPARATOR_ROW.matcher(line.strip()).matches()) {
          tableHeader = true; // the header row names the columns, which the layout shows
          blankLine(out);
        } else if (!SEPARATOR_ROW.matcher(line.strip()).matches()) {
          row(cells(line), out);
        }
        continue;
      }
      tableHeader = false;
      if (line.isBlank()) {
        flush(paragraph, out);
      } else {
        paragraph.add(line.strip());
      }
    }
    flush(paragraph, out);
    return out.toString().replaceFirst("^\n+", "").stripTrailing() + "\n";
  }

  /** Inline Markdown as plain text: code, emphasis and links keep only their text. */
  static String plain(String text) {
    String s = LINK.matcher(text).replaceAll("$1");
    s = STRONG.matcher(s).replaceAll("$1");
    return s.replace("\\|", "|").replace("`", "");
  }

  private static void flush(List<String> paragraph, StringBuilder out) {
    if (paragraph.isEmpty()) {
      return;
    }
    blankLine(out);
    String text = plain(String.join(" ", paragraph));
    boolean item = text.startsWith("- ");
    wrap(item ? text.substring(2) : text, item ? "  - " : "", item ? "    " : "", out);
    paragraph.clear();
  }

  private static void row(List<String> cells, StringBuilder out) {
    String option = plain(cells.get(0));
    String what = cells.size() > 1 ? plain(cells.get(1)) : "";
    String lead = " ".repeat(INDENT) + option;
    if (lead.length() + 2 <= TEXT_COLUMN) {
      wrap(what, lead + " ".repeat(TEXT_COLUMN - lead.length()), " ".repeat(TEXT_COLUMN), out);
    } else {
      out.append(lead).append('\n');
      wrap(what, " ".repeat(TEXT_COLUMN), " ".repeat(TEXT_COLUMN), out);
    }
  }

  /** A table row's cells; {@code \|} inside a cell is a bar, not a border. */
  static List<String> cells(String row) {
    List<String> cells = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    String s = row.strip();
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length() && s.charAt(i + 1) == '|') {
        cell.append("\\|");
        i++;
      } else if (c == '|') {
        cells.add(cell.toString().strip());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    if (!cell.toString().isBlank()) {
      cells.add(cell.toString().strip());
    }
    return cells;
  }

  /** {@code text} in lines of at most WIDTH columns (a longer word stays whole). */
  private static void wrap(String text, String first, String rest, StringBuilder out) {
    StringBuilder line = new StringBuilder(first);
    boolean empty = true;
    for (String word : text.split("\\s+")) {
      if (word.isEmpty()) {
        continue;
      }
      if (!empty && line.length() + 1 + word.length() > WIDTH) {
        out.append(line).append('\n');
        line.setLength(0);
        line.append(rest);
        empty = true;
      }
      if (!empty) {
        line.append(' ');
      }
      line.append(word);
      empty = false;
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }

  private static void blankLine(StringBuilder out) {
    int n = out.length();
    if (n > 0 && !(n >= 2 && out.charAt(n - 1) == '\n' && out.charAt(n - 2) == '\n')) {
      out.append('\n');
    }
  }
}
