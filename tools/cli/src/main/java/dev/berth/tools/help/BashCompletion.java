package dev.berth.tools.help;

import java.util.Collection;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Bash completion for the Torque commands, from the same documentation as their help: a word that
 * starts with a dash completes to the options the command's tables list; another word, for the
 * commands that take job ids, to the caller's own jobs ({@code qselect -u $USER}, a call of a
 * millisecond or two), and otherwise to file names.
 */
public final class BashCompletion {
  private static final Pattern OPTION = Pattern.compile("(?<![\\w-])(--?[A-Za-z][\\w-]*)");

  /** The commands whose operands are job ids. */
  private static final Set<String> JOB_OPERANDS =
      Set.of(
          "qalter",
          "qchkpt",
          "qdel",
          "qhold",
          "qmove",
          "qorder",
          "qrerun",
          "qrls",
          "qrun",
          "qsig",
          "qstat",
          "tracejob");

  private BashCompletion() {}

  /**
   * The options {@code command}'s synopsis (the first code block of its part) and its tables name,
   * and --help and --version.
   */
  public static SortedSet<String> options(String command) {
    SortedSet<String> options = new TreeSet<>(Set.of("--help", "--version"));
    CommandHelp.part(command)
        .ifPresent(
            part -> {
              boolean synopsis = true;
              for (Markdown.Block block : Markdown.blocks(part.lines())) {
                if (block instanceof Markdown.Code code && synopsis) {
                  code.lines().forEach(line -> add(line.replaceFirst("#.*", ""), options));
                } else if (block instanceof Markdown.Table table) {
                  table.rows().forEach(row -> add(Markdown.plain(row.option()), options));
                }
                synopsis = false;
              }
            });
    return options;
  }

  private static void add(String text, SortedSet<String> options) {
    Matcher m = OPTION.matcher(text);
    while (m.find()) {
      options.add(m.group(1));
    }
  }

  /** A bash script that completes {@code commands} (bash-completion loads it by their names). */
  public static String script(Collection<String> commands) {
    StringBuilder s = new StringBuilder();
    s.append("# bash completion for Berth's Torque commands, made from their documentation\n")
        .append("# (docs/commands.md, qsub.md, qmgr.md) by the build: options and own job ids.\n")
        .append("_berth_torque() {\n")
        .append("  local cur=${COMP_WORDS[COMP_CWORD]} options=\n")
        .append("  case $1 in\n");
    for (String command : commands) {
      s.append("    ")
          .append(command)
          .append(") options='")
          .append(String.join(" ", options(command)))
          .append("' ;;\n");
    }
    s.append("  esac\n")
        .append("  if [[ $cur == -* ]]; then\n")
        .append("    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n")
        .append("    return\n")
        .append("  fi\n")
        .append("  case $1 in\n")
        .append("    ")
        .append(String.join("|", new TreeSet<>(JOB_OPERANDS)))
        .append(")\n")
        .append(
            "      COMPREPLY=($(compgen -W \"$(qselect -u \"${USER:-$(id -un)}\" 2>/dev/null)\"")
        .append(" -- \"$cur\")) ;;\n")
        .append("  esac\n")
        .append("}\n")
        .append("complete -o default -F _berth_torque ")
        .append(String.join(" ", commands))
        .append('\n');
    return s.toString();
  }
}
