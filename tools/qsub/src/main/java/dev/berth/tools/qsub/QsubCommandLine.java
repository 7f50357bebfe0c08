package dev.berth.tools.qsub;

import dev.berth.client.Getopt;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * qsub's parsed command line: its options in order, and at most one operand, the script (none means
 * the script comes from standard input, except for an interactive job, which has none). With {@code
 * -x} the operand is the interactive job's command.
 */
record QsubCommandLine(List<String> args, List<Getopt.Option> options, List<String> operands) {
  static final String PREFIX_ENV = "PBS_DPREFIX";

  static QsubCommandLine parse(List<String> args) throws Getopt.UsageException {
    Getopt.Result parsed = Getopt.parse(QsubFlags.QSUB, args);
    return new QsubCommandLine(List.copyOf(args), parsed.options(), parsed.operands());
  }

  /** The script file named on the command line, if any. */
  Optional<String> scriptPath() throws QsubException {
    if (operands.size() > 1) {
      throw new QsubException(
          "only one job script may be given, found "
              + String.join(" ", operands)
              + " (to pass values to the script use -v NAME=value)");
    }
    return operands.stream().findFirst();
  }

  /** The directive prefix: the last {@code -C}, else {@code $PBS_DPREFIX}, else {@code #PBS}. */
  String prefix(Map<String, String> env) {
    for (int i = options.size() - 1; i >= 0; i--) {
      if (options.get(i).is('C')) {
        return options.get(i).value();
      }
    }
    return env.getOrDefault(PREFIX_ENV, DirectiveScanner.DEFAULT_PREFIX);
  }

  /**
   * Whether the command line asks for an interactive job ({@code -I}, {@code -W interactive=true}),
   * known before the script is read, as Torque knows it: such a job reads no script from stdin. A
   * {@code #PBS -I} in a script file makes the job interactive too, once it is read.
   */
  boolean interactive() {
    return options.stream()
        .anyMatch(o -> o.is('I') || (o.is('W') && isInteractiveExtension(o.value())));
  }

  /** {@code -x}: the operand is a command, which need not be a file. */
  boolean runsCommand() {
    return options.stream().anyMatch(o -> o.is('x'));
  }

  private static boolean isInteractiveExtension(String value) {
    String v = value.strip();
    int eq = v.indexOf('=');
    return eq > 0 && v.substring(0, eq).strip().equals("interactive");
  }

  /** The word of the first long option ({@code --version} gives {@code version}), if any. */
  Optional<String> longOption() {
    return options.stream().filter(o -> o.is('-')).map(Getopt.Option::value).findFirst();
  }
}
