package dev.berth.tools.jobctl;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.tools.cli.CliContext;

/**
 * qhold and qrls read the same flags: {@code -h} with letters of {@code uos} (Torque's check; an
 * empty list is rejected), and at least one job id. Without {@code -h} the server's default (the
 * user hold) applies.
 */
final class HoldCommand {
  @FunctionalInterface
  interface HoldRequest {
    Request.Builder build(String jobId, String holdTypes);
  }

  private HoldCommand() {}

  static int run(
      String program,
      String usage,
      Invocation invocation,
      CliContext context,
      HoldRequest request) {
    String holdTypes = "";
    Getopt.Result parsed;
    try {
      parsed = Getopt.parse("h:", invocation.args());
      for (Getopt.Option option : parsed.options()) {
        holdTypes = option.value().strip();
        if (holdTypes.isEmpty() || !holdTypes.chars().allMatch(c -> "uos".indexOf(c) >= 0)) {
          throw new Getopt.UsageException("illegal -h value");
        }
      }
      if (parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      if (e.getMessage() != null) {
        invocation.error(e.getMessage());
      }
      invocation.err().print(usage);
      return ExitCodes.USAGE;
    }
    String types = holdTypes;
    try (ServerConnection transport = context.connector().connect(invocation)) {
      JobRequests requests = new JobRequests(program, invocation, transport);
      for (String id : parsed.operands()) {
        requests.send(id, jobId -> request.build(jobId, types));
      }
      return requests.status();
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
