package dev.berth.tools.jobctl;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.SignalJob;
import dev.berth.tools.cli.CliContext;

/**
 * {@code qsig [-a] [-s signal] job_identifier...}: sends a signal (SIGTERM by default) to running
 * jobs. The signal goes to the server as given ({@code KILL}, {@code SIGUSR1}, {@code 9}, {@code
 * suspend}, {@code resume}); the server checks it. {@code -a} (asynchronous) is accepted and
 * changes nothing.
 */
public final class Qsig {
  private static final String USAGE = "usage: qsig [-a] [-s signal] job_identifier...\n";

  private Qsig() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    String signal = "SIGTERM";
    Getopt.Result parsed;
    try {
      parsed = Getopt.parse("as:", invocation.args());
      for (Getopt.Option option : parsed.options()) {
        if (option.is('s')) {
          signal = option.value();
        }
      }
      if (parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      if (e.getMessage() != null) {
        invocation.error(e.getMessage());
      }
      invocation.err().print(USAGE);
      return ExitCodes.USAGE;
    }
    String chosen = signal;
    try (ServerConnection transport = context.connector().connect(invocation)) {
      JobRequests requests = new JobRequests("qsig", invocation, transport);
      for (String id : parsed.operands()) {
        requests.send(
            id,
            jobId ->
                Request.newBuilder()
                    .setSignal(SignalJob.newBuilder().setJobId(jobId).setSignal(chosen)));
      }
      return requests.status();
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
