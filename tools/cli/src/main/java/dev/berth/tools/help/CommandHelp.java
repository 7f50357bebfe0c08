package dev.berth.tools.help;

import dev.berth.client.Invocation;
import dev.berth.core.BerthVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code COMMAND --help} prints: the command's own part of the user documentation
 * (docs/commands.md, docs/qsub.md, docs/qmgr.md, which the build puts beside these classes), its
 * synopsis, what it does and its options, as text. One source for both, so the help cannot say
 * other than the documentation does.
 */
public final class CommandHelp {
  /** Where the build puts the documentation's pages (tools/cli/pom.xml). */
  private static final String PAGES = "/dev/berth/tools/help/";

  private CommandHelp() {}

  /** Whether the command line asks for help: {@code --help} among its options (before a --). */
  public static boolean asked(List<String> args) {
    for (String arg : args) {
      if (arg.equals("--")) {
        return false;
      }
      if (arg.equals("--help")) {
        return true;
      }
    }
    return false;
  }

  /** Prints {@code command}'s help on standard output; returns the exit status. */
  public static int print(String command, Invocation invocation) {
    Optional<String> help = of(command);
    if (help.isEmpty()) {
      invocation.error("no help for " + command + " in this build");
      return 1;
    }
    invocation.out().print(help.get());
    return 0;
  }

  /** {@code command}'s help, if the documentation has a part for it. */
  public static Optional<String> of(String command) {
    return part(command)
        .map(
            part ->
                part.title()
                    + "\n\n"
                    + MarkdownText.render(part.lines())
                    + "\nThe whole text: docs/"
                    + part.page()
                    + ", \""
                    + part.title()
                    + "\".\n");
  }

  /** {@code command}'s man page (ManPage), if the documentation has a part for it. */
  public static Optional<String> manPage(String command) {
    return part(command).map(part -> ManPage.of(command, part, BerthVersion.NUMBER));
  }

  /**
   * {@code command}'s part of the documentation: its title (the section's heading, as text) and its
   * Markdown, further sections of the part under a {@code **heading:**} line each.
   */
  static Optional<Documented> part(String command) {
    Part part = Part.of(command);
    List<String> page = page(part.page());
    List<String> lines = new ArrayList<>();
    String title = null;
    for (String heading : part.headings()) {
      List<String> section = section(page, heading, command);
      if (section.isEmpty()) {
        return Optional.empty();
      }
      String name = section.get(0).replaceFirst("^#+\\s*", "");
      if (title == null) {
        title = Markdown.plain(name);
      } else {
        lines.add("");
        lines.add("**" + name + ":**");
      }
      lines.addAll(section.subList(1, section.size()));
    }
    return Optional.of(new Documented(title, part.page(), List.copyOf(lines)));
  }

  /** A command's part of the documentation: its title, the page it is on, its Markdown. */
  record Documented(String title, String page, List<String> lines) {}

  /**
   * The lines of the section whose heading is {@code heading} or starts with it and a space (or,
   * for "*", the level-2 heading that names {@code command} among its comma-separated names), from
   * the heading to the next heading of any level.
   */
  static List<String> section(List<String> page, String heading, String command) {
    boolean inCode = false;
    int from = -1;
    for (int i = 0; i < page.size(); i++) {
      String line = page.get(i);
      if (line.startsWith("```")) {
        inCode = !inCode; // a # in a code block is a shell comment, not a heading
      }
      if (inCode || !line.startsWith("#")) {
        continue;
      }
      if (from >= 0) {
        return page.subList(from, i);
      }
      if (heading.equals("*")
          ? names(line, command)
          : line.equals(heading) || line.startsWith(heading + " ")) {
        from = i;
      }
    }
    return from < 0 ? List.of() : page.subList(from, page.size());
  }

  private static boolean names(String line, String command) {
    if (!line.startsWith("## ")) {
      return false;
    }
    for (String name : line.substring(3).split(" — ", 2)[0].split(",")) {
      if (name.strip().equals(command)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> page(String name) {
    try (InputStream in = CommandHelp.class.getResourceAsStream(PAGES + name)) {
      if (in == null) {
        return List.of();
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where a command's help is: a page and its headings, the first one the title. */
  record Part(String page, List<String> headings) {
    static Part of(String command) {
      return switch (command) {
        case "qsub", "qalter" ->
            new Part("qsub.md", List.of("# qsub and qalter", "## Directives", "## Options"));
        case "qmgr" ->
            new Part("qmgr.md", List.of("# qmgr", "## Directives", "## Errors and exit status"));
        case "sbatch",
            "salloc",
            "squeue",
            "scancel",
            "sacct",
            "sinfo",
            "scontrol",
            "sprio",
            "sshare",
            "srun" ->
            new Part("slurm.md", List.of("*"));
        default -> new Part("commands.md", List.of("*")); // a section of its own
      };
    }
  }
}
