package dev.berth.tools.help;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command's part of the documentation as a man page (man(7)'s macros): the same Markdown blocks
 * the help text lays out, so {@code man qsub}, {@code qsub --help} and docs/qsub.md say the same.
 * The first code block is the synopsis; the first sentence after it is the NAME line that whatis
 * and apropos show.
 */
final class ManPage {
  private static final Pattern CODE = Pattern.compile("`([^`]*)`");
  private static final Pattern STRONG = Pattern.compile("\\*\\*([^*]+)\\*\\*");
  private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)]*)\\)");
  private static final Pattern SUBHEADING = Pattern.compile("\\*\\*(.+):\\*\\*");

  private ManPage() {}

  /** {@code part}'s page for {@code command}, in section 1, naming Berth's {@code version}. */
  static String of(String command, CommandHelp.Documented part, String version) {
    StringBuilder out = new StringBuilder();
    out.append(".TH ")
        .append(escape(command.toUpperCase(java.util.Locale.ROOT)))
        .append(" 1 \"\" \"Berth ")
        .append(escape(version))
        .append("\" \"Berth commands\"\n");
    List<Markdown.Block> blocks = Markdown.blocks(part.lines());
    String[] title = part.title().split(" — ", 2); // names — what they do
    out.append(".SH NAME\n")
        .append(escape(String.join(", ", title[0].split(",? and |, "))))
        .append(" \\- ")
        .append(escape(title.length > 1 ? title[1] : summary(blocks)))
        .append('\n');
    int synopsis = synopsis(blocks);
    if (synopsis >= 0) {
      out.append(".SH SYNOPSIS\n");
      code((Markdown.Code) blocks.get(synopsis), out);
    }
    out.append(".SH DESCRIPTION\n");
    for (int i = 0; i < blocks.size(); i++) {
      Markdown.Block block = blocks.get(i);
      if (i == synopsis) {
        continue;
      }
      if (block instanceof Markdown.Paragraph p) {
        Matcher heading = SUBHEADING.matcher(p.text());
        if (heading.matches()) {
          out.append(".SS ").append(escape(Markdown.plain(heading.group(1)))).append('\n');
        } else {
          out.append(".PP\n").append(inline(p.text())).append('\n');
        }
      } else if (block instanceof Markdown.Item item) {
        out.append(".IP \\(bu 2\n").append(inline(item.text())).append('\n');
      } else if (block instanceof Markdown.Code code) {
        code(code, out);
      } else if (block instanceof Markdown.Table table) {
        for (Markdown.Row row : table.rows()) {
          out.append(".TP\n").append(inline(row.option())).append('\n');
          out.append(inline(row.what())).append('\n');
        }
      }
    }
    out.append(".SH SEE ALSO\n")
        .append("The whole text: docs/")
        .append(escape(part.page()))
        .append(", \"")
        .append(escape(part.title()))
        .append("\".\n");
    return out.toString();
  }

  /**
   * Where the synopsis is: the first code block, if it comes before the options (a table or a
   * further section); -1 when there is none.
   */
  private static int synopsis(List<Markdown.Block> blocks) {
    for (int i = 0; i < blocks.size(); i++) {
      Markdown.Block block = blocks.get(i);
      if (block instanceof Markdown.Code) {
        return i;
      }
      if (block instanceof Markdown.Table
          || block instanceof Markdown.Paragraph p && SUBHEADING.matcher(p.text()).matches()) {
        return -1;
      }
    }
    return -1;
  }

  /** The first sentence of the first paragraph, as plain text without its full stop. */
  static String summary(List<Markdown.Block> blocks) {
    for (Markdown.Block block : blocks) {
      if (block instanceof Markdown.Paragraph p && !SUBHEADING.matcher(p.text()).matches()) {
        String text = Markdown.plain(p.text());
        int end = text.indexOf(". ");
        return end < 0 ? text.replaceFirst("\\.$", "") : text.substring(0, end);
      }
    }
    return "a Berth command";
  }

  private static void code(Markdown.Code code, StringBuilder out) {
    out.append(".PP\n.RS 4\n.nf\n");
    for (String line : code.lines()) {
      out.append(line.isEmpty() ? "" : escape(line)).append('\n');
    }
    out.append(".fi\n.RE\n");
  }

  /**
   * Inline Markdown as roff: code and emphasis in bold, a link as its text. Escaped first, so a
   * backslash, a hyphen or a leading dot in the text is text, never a request.
   */
  static String inline(String text) {
    String s = escape(text.replace("\\|", "|"));
    s = LINK.matcher(s).replaceAll("$1");
    s = STRONG.matcher(s).replaceAll(ManPage::bold);
    return CODE.matcher(s).replaceAll(ManPage::bold);
  }

  private static String bold(java.util.regex.MatchResult match) {
    return Matcher.quoteReplacement("\\fB" + match.group(1) + "\\fR");
  }

  /**
   * Text for roff: a backslash is printed as one ({@code \e}), a hyphen is a minus (what a terminal
   * shows and a reader can copy into a command line), and a line that would start with a dot or an
   * apostrophe (a request) starts with a zero-width {@code \&}.
   */
  static String escape(String text) {
    String s = text.replace("\\", "\\e").replace("-", "\\-");
    return s.startsWith(".") || s.startsWith("'") ? "\\&" + s : s;
  }
}
