package dev.berth.tools.qmgr;

import dev.berth.client.Connector;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerUnavailableException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code qmgr [-a] [-c directive] [-e] [-n] [-z] [server]}: administers the server, queues and
 * nodes. Reads directives from {@code -c} or, without it, from standard input (prompting when that
 * is a terminal), and sends each as one Manage request over one connection.
 *
 * <p>Exit status: 0 when every directive succeeded; otherwise that of the last failure: 1 for a
 * syntax error (Torque's code) or a directive that named nothing to act on, the server's PBSE code
 * % 256 for a rejected request (as Berth's other commands), 3 when the server cannot be reached
 * (Torque's code), 2 for a bad command line. {@code -a} stops at the first failure.
 */
public final class Qmgr {
  static final int SYNTAX_ERROR = 1;
  static final int CANNOT_CONNECT = 3;
  private static final String USAGE = "usage: qmgr [-a] [-c command] [-e] [-n] [-z] [server]";

  private Qmgr() {}

  private record Options(
      boolean abort,
      String command,
      boolean echo,
      boolean syntaxOnly,
      boolean quiet,
      String server) {}

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess("qmgr", args)));
  }

  public static int run(Invocation invocation) {
    return run(invocation, Connector.SERVER, invocation.origin().terminal());
  }

  /**
   * @param connector how to reach the server
   * @param terminal whether standard input and output are a terminal (then qmgr prompts)
   */
  static int run(Invocation invocation, Connector connector, boolean terminal) {
    Options options;
    try {
      options = options(invocation);
    } catch (Getopt.UsageException e) {
      invocation.error(e.getMessage());
      invocation.err().print(USAGE + "\n");
      return ExitCodes.USAGE;
    }
    PrintStream err = options.quiet() ? null : invocation.err();
    CommandReader reader =
        options.command() != null
            ? CommandReader.of(options.command())
            : new CommandReader(
                new BufferedReader(new InputStreamReader(invocation.in(), StandardCharsets.UTF_8)),
                terminal ? invocation.out() : null);
    String server = options.server() != null ? options.server() : "default";
    try (Session session =
        new Session(
            invocation.out(),
            err,
            connector,
            invocation,
            server,
            options.syntaxOnly(),
            invocation.zone())) {
      return loop(reader, session, options, invocation.out(), err);
    } catch (IOException e) {
      if (err != null) {
        invocation.error("cannot read the directives: " + e.getMessage());
      }
      return SYNTAX_ERROR;
    } catch (ServerUnavailableException e) {
      if (err != null) {
        invocation.error(e.getMessage());
      }
      return CANNOT_CONNECT;
    } finally {
      invocation.out().flush();
    }
  }

  private static int loop(
      CommandReader reader, Session session, Options options, PrintStream out, PrintStream err)
      throws IOException, ServerUnavailableException {
    int status = 0;
    String text;
    while ((text = reader.next()) != null) {
      if (options.echo()) {
        out.print(text + "\n");
      }
      int result;
      try {
        Directive directive = QmgrParser.parse(text);
        if (directive instanceof Directive.Quit) {
          break;
        }
        result = session.execute(directive);
      } catch (QmgrSyntaxException e) {
        if (err != null) {
          err.print(e.report(text));
        }
        result = SYNTAX_ERROR;
      }
      out.flush();
      if (result != 0) {
        status = result;
        if (options.abort()) {
          break;
        }
      }
    }
    return status;
  }

  private static Options options(Invocation invocation) throws Getopt.UsageException {
    Getopt.Result parsed = Getopt.parse("ac:enz", invocation.args());
    boolean abort = false;
    boolean echo = false;
    boolean syntaxOnly = false;
    boolean quiet = false;
    String command = null;
    for (Getopt.Option option : parsed.options()) {
      switch (option.name()) {
        case 'a' -> abort = true;
        case 'c' -> command = option.value();
        case 'e' -> echo = true;
        case 'n' -> syntaxOnly = true;
        case 'z' -> quiet = true;
        default -> throw new Getopt.UsageException("invalid option -- '" + option.name() + "'");
      }
    }
    if (parsed.operands().size() > 1) {
      throw new Getopt.UsageException(
          "Berth has one server; give at most one server name, not " + parsed.operands());
    }
    String server = parsed.operands().isEmpty() ? null : parsed.operands().get(0);
    return new Options(abort, command, echo, syntaxOnly, quiet, server);
  }
}
