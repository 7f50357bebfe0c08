package dev.berth.tools.help;

import java.util.List;

/**
 * The user documentation's Markdown (Markdown's blocks) as text for a terminal. Paragraphs are
 * wrapped; a code block is kept as written, indented; a table becomes one entry per row, its option
 * and then what it does beside it or below it.
 */
final class MarkdownText {
  static final int WIDTH = 79;
  private static final int INDENT = 2;
  private static final int TEXT_COLUMN = 24;

  private MarkdownText() {}

  /** {@code lines} of Markdown, as text. */
  static String render(List<String> lines) {
    StringBuilder out = new StringBuilder();
    for (Markdown.Block block : Markdown.blocks(lines)) {
      blankLine(out);
      if (block instanceof Markdown.Paragraph p) {
        wrap(Markdown.plain(p.text()), "", "", out);
      } else if (block instanceof Markdown.Item item) {
        wrap(Markdown.plain(item.text()), "  - ", "    ", out);
      } else if (block instanceof Markdown.Code code) {
        code.lines().forEach(line -> out.append(" ".repeat(INDENT)).append(line).append('\n'));
      } else if (block instanceof Markdown.Table table) {
        table.rows().forEach(row -> row(row, out));
      }
    }
    return out.toString().replaceFirst("^\n+", "").stripTrailing() + "\n";
  }

  private static void row(Markdown.Row row, StringBuilder out) {
    String option = Markdown.plain(row.option());
    String what = Markdown.plain(row.what());
    String lead = " ".repeat(INDENT) + option;
    if (lead.length() + 2 <= TEXT_COLUMN) {
      wrap(what, lead + " ".repeat(TEXT_COLUMN - lead.length()), " ".repeat(TEXT_COLUMN), out);
    } else {
      out.append(lead).append('\n');
      wrap(what, " ".repeat(TEXT_COLUMN), " ".repeat(TEXT_COLUMN), out);
    }
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
