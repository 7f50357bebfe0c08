package dev.berth.tools.qstat;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.VersionRequested;

/**
 * {@code qstat}: status of jobs, queues ({@code -Q}, {@code -q}) or the server ({@code -B}) in
 * Torque 6's text formats, Torque's XML ({@code -x}) or OpenPBS-style JSON ({@code -F json}).
 */
public final class Qstat {
  private Qstat() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    QstatOptions options;
    try {
      options = QstatOptions.parse(invocation.args(), invocation.env());
    } catch (VersionRequested e) {
      return VersionRequested.answer(invocation, context);
    } catch (Getopt.UsageException e) {
      String message = e.getMessage();
      invocation
          .err()
          .print(message.startsWith("qstat:") ? message + "\n" : "qstat: " + message + "\n");
      invocation.err().print(QstatOptions.USAGE);
      return ExitCodes.USAGE;
    }
    try (ServerConnection transport = context.connector().connect(invocation)) {
      switch (options.mode()) {
        case QUEUES:
          return new QstatQueues(invocation, context, options, transport).run();
        case SERVER:
          return new QstatServer(invocation, context, options, transport).run();
        default:
          return new QstatJobs(invocation, context, options, transport).run();
      }
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
