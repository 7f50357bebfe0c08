package dev.berth.tools.momctl;

import dev.berth.client.Getopt;
import dev.berth.core.ControlCharacters;
import java.util.ArrayList;
import java.util.List;

/**
 * momctl's command line, read with Torque's option string ({@code c:Cd:f:h:lp:q:r:sv}): one command
 * ({@code -c}, {@code -C}, {@code -d}, {@code -q} repeated, {@code -s}), the nodes ({@code -h} or
 * {@code -f}, the last one given; this host when neither), and {@code -v}. Torque's {@code -r},
 * {@code -p} and {@code -l} have no Berth meaning and are refused with the reason.
 *
 * @param action what to do on each node
 * @param queries for {@link Action#QUERY}: status item names, and {@code diagN} for {@code -d N}
 * @param clearJob for {@link Action#CLEAR}: the job as typed, or {@code all}
 * @param hosts the {@code -h} value, or null
 * @param hostFile the {@code -f} file, or null
 * @param verbose {@code -v}: the node summary at the end
 */
record MomctlOptions(
    Action action,
    List<String> queries,
    String clearJob,
    String hosts,
    String hostFile,
    boolean verbose) {

  enum Action {
    QUERY,
    CYCLE,
    CLEAR,
    SHUTDOWN
  }

  static final String USAGE =
      "USAGE:  momctl <ARGS>\n"
          + "            [ -c {JOB|'all'} ]    // CLEAR JOB\n"
          + "            [ -C ]                // CYCLE\n"
          + "            [ -d DIAGLEVEL ]      // DIAGNOSE (0 - 3)\n"
          + "            [ -f HOSTFILE ]       // FILE CONTAINING HOSTLIST\n"
          + "            [ -h HOST[,HOST]... ] // HOSTLIST\n"
          + "            [ -q ATTR ]           // QUERY ATTRIBUTE\n"
          + "            [ -s ]                // SHUTDOWN\n"
          + "            [ -v ]                // NODE SUMMARY\n"
          + "\n"
          + " Only one of c, C, d, q, or s must be specified, but -q may\n"
          + " be used multiple times. HOST may be a hostname or \":property\".\n";

  /** A command line momctl understands but will not carry out; the message says why. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  static MomctlOptions parse(List<String> args) throws Getopt.UsageException, Refused {
    Getopt.Result parsed = Getopt.parse("c:Cd:f:h:lp:q:r:sv", args);
    if (!parsed.operands().isEmpty()) {
      throw new Getopt.UsageException(
          "unexpected argument '" + ControlCharacters.escape(parsed.operands().get(0)) + "'");
    }
    List<Character> commands = new ArrayList<>();
    List<String> queries = new ArrayList<>();
    String clearJob = null;
    String hosts = null;
    String hostFile = null;
    boolean verbose = false;
    for (Getopt.Option option : parsed.options()) {
      switch (option.name()) {
        case 'c' -> {
          commands.add('c');
          clearJob = option.value().strip();
        }
        case 'd' -> {
          commands.add('d');
          queries.add("diag" + level(option.value()));
        }
        case 'q' -> {
          if (!commands.contains('q')) {
            commands.add('q');
          }
          queries.add(query(option.value()));
        }
        case 'C', 's' -> commands.add(option.name());
        case 'h' -> {
          hosts = option.value();
          hostFile = null;
        }
        case 'f' -> {
          hostFile = option.value();
          hosts = null;
        }
        case 'v' -> verbose = true;
        default -> throw refusal(option.name());
      }
    }
    if (commands.isEmpty()) {
      throw new Getopt.UsageException("no command specified");
    }
    if (commands.size() > 1) {
      throw new Getopt.UsageException("more than one command specified");
    }
    Action action =
        switch (commands.get(0)) {
          case 'c' -> Action.CLEAR;
          case 'C' -> Action.CYCLE;
          case 's' -> Action.SHUTDOWN;
          default -> Action.QUERY;
        };
    return new MomctlOptions(action, List.copyOf(queries), clearJob, hosts, hostFile, verbose);
  }

  /** {@code -d 2} is {@code diag2}; as in Torque only the first character counts. */
  private static int level(String value) throws Getopt.UsageException {
    String level = value.strip();
    if (level.isEmpty() || level.charAt(0) < '0' || level.charAt(0) > '9') {
      throw new Getopt.UsageException(
          "invalid diagnostic level '" + ControlCharacters.escape(value) + "'");
    }
    return level.charAt(0) - '0';
  }

  /** A query name; Torque's {@code NAME=VALUE} (setting a mom's parameter) is refused. */
  private static String query(String value) throws Refused {
    String name = value.strip();
    if (name.indexOf('=') >= 0) {
      throw new Refused(
          "-q "
              + ControlCharacters.escape(name)
              + ": Berth moms take no remote configuration; edit the mom's mom.conf and restart it");
    }
    return name;
  }

  private static Refused refusal(char option) {
    return new Refused(
        switch (option) {
          case 'r' ->
              "-r: Berth moms take no remote configuration; edit the mom's mom.conf and restart it";
          case 'p' ->
              "-p: momctl asks the server, which answers for its moms; it connects to no mom's port";
          default -> "-l: Berth's moms report no machine layout";
        });
  }
}
