package dev.berth.tools.pbsdsh;

import dev.berth.client.Getopt;
import java.util.List;

/**
 * pbsdsh's command line: {@code [-c copies | -n node | -h host] [-o] [-s] [-u] [-v] program
 * [args...]}. Options end at the program, so its own options stay its own.
 *
 * @param copies {@code -c}, or 0
 * @param vnode {@code -n}, or -1
 * @param host {@code -h}, or null
 * @param noWait {@code -o}: start the tasks and leave, their output going to the job's files
 * @param sequential {@code -s}: one task at a time
 * @param unique {@code -u}: one task per node
 * @param verbose {@code -v}: report each task's start and end on stderr
 * @param argv the program and its arguments
 */
public record PbsdshOptions(
    int copies,
    int vnode,
    String host,
    boolean noWait,
    boolean sequential,
    boolean unique,
    boolean verbose,
    List<String> argv) {
  public static final String USAGE =
      "usage: pbsdsh [-c copies | -n node | -h host] [-o] [-s] [-u] [-v] program [args...]\n";

  public static PbsdshOptions parse(List<String> args) throws Getopt.UsageException {
    Getopt.Result parsed = Getopt.parse("+c:n:h:osuv", args);
    int copies = 0;
    int vnode = -1;
    String host = null;
    boolean noWait = false;
    boolean sequential = false;
    boolean unique = false;
    boolean verbose = false;
    for (Getopt.Option option : parsed.options()) {
      switch (option.name()) {
        case 'c' -> copies = number(option, 1);
        case 'n' -> vnode = number(option, 0);
        case 'h' -> host = option.value();
        case 'o' -> noWait = true;
        case 's' -> sequential = true;
        case 'u' -> unique = true;
        case 'v' -> verbose = true;
        default -> throw new IllegalStateException("unhandled option " + option);
      }
    }
    int targets = (copies > 0 ? 1 : 0) + (vnode >= 0 ? 1 : 0) + (host != null ? 1 : 0);
    if (targets > 1) {
      throw new Getopt.UsageException("-c, -n and -h are mutually exclusive");
    }
    if (parsed.operands().isEmpty()) {
      throw new Getopt.UsageException("no program given");
    }
    return new PbsdshOptions(
        copies, vnode, host, noWait, sequential, unique, verbose, parsed.operands());
  }

  /** The program, as messages name it. */
  public String program() {
    return argv.get(0);
  }

  private static int number(Getopt.Option option, int least) throws Getopt.UsageException {
    try {
      int value = Integer.parseInt(option.value());
      if (value >= least) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    String what = least > 0 ? "a positive number" : "a number";
    throw new Getopt.UsageException(
        "-" + option.name() + " takes " + what + ", not '" + option.value() + "'");
  }
}
