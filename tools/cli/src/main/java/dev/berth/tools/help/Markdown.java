package dev.berth.tools.help;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The user documentation's Markdown as blocks, for what the pages use: paragraphs, list items, code
 * blocks and tables. The help text (MarkdownText) and the man pages (ManPage) lay out the same
 * blocks, each in its own way; inline Markdown stays in the blocks' text for them.
 */
final class Markdown {
  private static final Pattern SEPARATOR_ROW = Pattern.compile("\\|[\\s\\-:|]+\\|?");
  private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");
  private static final Pattern STRONG = Pattern.compile("\\*\\*([^*]+)\\*\\*");

  /** One block of a page. */
  sealed interface Block {}

  /** A paragraph, its lines joined by blanks. */
  record Paragraph(String text) implements Block {}

  /** A list item ({@code - text}), its lines joined. */
  record Item(String text) implements Block {}

  /** A code block's lines, as written. */
  record Code(List<String> lines) implements Block {}

  /**
   * A table's rows after the header, each its first column (an option) and its second (what it
   * does); further columns, which say how an option travels to the server, are left to the page.
   */
  record Table(List<Row> rows) implements Block {}

  record Row(String option, String what) {}

  private Markdown() {}

  static List<Block> blocks(List<String> lines) {
    List<Block> blocks = new ArrayList<>();
    List<String> paragraph = new ArrayList<>();
    List<String> code = null;
    List<Row> table = null;
    for (String line : lines) {
      if (code != null) {
        if (line.startsWith("```")) {
          blocks.add(new Code(List.copyOf(code)));
          code = null;
        } else {
          code.add(line);
        }
        continue;
      }
      if (!line.startsWith("|") && table != null) {
        blocks.add(new Table(List.copyOf(table)));
        table = null;
      }
      if (line.startsWith("```")) {
        flush(paragraph, blocks);
        code = new ArrayList<>();
      } else if (line.startsWith("|")) {
        flush(paragraph, blocks);
        if (table == null) {
          table = new ArrayList<>(); // the header row names the columns, which the layout shows
        } else if (!SEPARATOR_ROW.matcher(line.strip()).matches()) {
          List<String> cells = cells(line);
          table.add(new Row(cells.get(0), cells.size() > 1 ? cells.get(1) : ""));
        }
      } else if (line.isBlank()) {
        flush(paragraph, blocks);
      } else {
        if (line.startsWith("- ")) {
          flush(paragraph, blocks); // an item starts where the one before it ends
        }
        paragraph.add(line.strip());
      }
    }
    flush(paragraph, blocks);
    if (table != null) {
      blocks.add(new Table(List.copyOf(table)));
    }
    if (code != null) {
      blocks.add(new Code(List.copyOf(code)));
    }
    return blocks;
  }

  /** Inline Markdown as plain text: code, emphasis and links keep only their text. */
  static String plain(String text) {
    String s = LINK.matcher(text).replaceAll("$1");
    s = STRONG.matcher(s).replaceAll("$1");
    return s.replace("\\|", "|").replace("`", "");
  }

  private static void flush(List<String> paragraph, List<Block> blocks) {
    if (paragraph.isEmpty()) {
      return;
    }
    String text = String.join(" ", paragraph);
    blocks.add(text.startsWith("- ") ? new Item(text.substring(2)) : new Paragraph(text));
    paragraph.clear();
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
}
