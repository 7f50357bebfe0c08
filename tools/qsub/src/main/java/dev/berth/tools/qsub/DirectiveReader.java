package dev.berth.tools.qsub;

import dev.berth.client.Getopt;
import dev.berth.tools.qsub.DirectiveScanner.Directive;
import dev.berth.tools.qsub.DirectiveScanner.ScannedScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads the options out of scanned directives. Each directive line is split into words and parsed
 * by the same GNU getopt rules as the command line, on its own, so an error names its line. Words
 * that are not options are skipped, as Torque does, but with a warning; a late directive is
 * reported once.
 */
final class DirectiveReader {
  /** An option and where it came from: a script line, or 0 for the command line. */
  record Located(int line, Getopt.Option option) {}

  private static final Set<String> W_NAMES =
      Set.of("group_list", "umask", "depend", "stagein", "stageout");
  private static final Set<String> RESOURCE_NAMES =
      Set.of("nodes", "walltime", "mem", "pmem", "vmem", "pvmem", "ncpus", "procs", "cput");

  private DirectiveReader() {}

  static List<Located> read(ScannedScript script, String prefix, Diagnostics diagnostics) {
    List<Located> options = new ArrayList<>();
    for (Directive directive : script.directives()) {
      try {
        readLine(directive, options, diagnostics);
      } catch (QsubException | Getopt.UsageException e) {
        diagnostics.error(directive.line(), e.getMessage());
      }
    }
    if (!script.lateDirectiveLines().isEmpty()) {
      diagnostics.warn(Diagnostics.COMMAND_LINE, lateWarning(script, prefix));
    }
    return options;
  }

  private static void readLine(Directive directive, List<Located> options, Diagnostics diag)
      throws QsubException, Getopt.UsageException {
    int line = directive.line();
    Getopt.Result parsed =
        Getopt.parse(QsubFlags.QSUB, DirectiveTokenizer.tokenize(directive.text()));
    for (String word : parsed.operands()) {
      diag.warn(line, ignoredWord(word, parsed));
    }
    for (Getopt.Option option : parsed.options()) {
      if (option.is('C')) {
        diag.warn(line, "-C has no effect in a script; give it to qsub or set PBS_DPREFIX");
      } else {
        options.add(new Located(line, option));
      }
    }
  }

  private static String ignoredWord(String word, Getopt.Result parsed) {
    String warning = "'" + word + "' is not an option and is ignored";
    if (parsed.options().stream().anyMatch(o -> o.is('n'))) {
      return warning + " (-n means node-exclusive and takes no value; for a job name use -N)";
    }
    String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : "";
    if (W_NAMES.contains(name)) {
      return warning + " (did you mean -W " + word + "?)";
    }
    if (RESOURCE_NAMES.contains(name)) {
      return warning + " (did you mean -l " + word + "?)";
    }
    return warning;
  }

  private static String lateWarning(ScannedScript script, String prefix) {
    List<Integer> late = script.lateDirectiveLines();
    String lines = late.stream().map(String::valueOf).collect(Collectors.joining(", "));
    return prefix
        + (late.size() == 1 ? " directive on line " : " directives on lines ")
        + lines
        + (late.size() == 1 ? " is" : " are")
        + " ignored: directives must come before the first command (line "
        + script.firstExecutableLine()
        + ")";
  }
}
