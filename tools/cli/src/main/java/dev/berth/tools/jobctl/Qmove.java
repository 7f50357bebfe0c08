package dev.berth.tools.jobctl;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.proto.MoveJob;
import dev.berth.proto.Request;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Usage;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code qmove destination job_identifier...}: moves queued, held or waiting jobs to another queue
 * of this server: {@code queue}, {@code queue@server} or {@code @server} (the server's default
 * queue). The server checks who may move the job and what the destination accepts; the command
 * checks only the destination's form, as Torque's does ({@code qmove: illegally formed destination:
 * a b}, exit 2).
 */
public final class Qmove {
  private static final String USAGE = "usage: qmove destination job_identifier...\n";

  /** Torque's parse_destination_id: printable names without '#' or '@', the server not empty. */
  private static final Pattern DESTINATION =
      Pattern.compile("[\\x21-\\x7e&&[^#@]]*(@[\\x21-\\x7e&&[^#@]]+)?");

  private Qmove() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    List<String> operands;
    try {
      operands = Getopt.parse("", invocation.args()).operands();
      if (operands.size() < 2) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    String destination = operands.get(0).strip();
    if (destination.isEmpty() || !DESTINATION.matcher(destination).matches()) {
      invocation.error("illegally formed destination: " + operands.get(0));
      return ExitCodes.USAGE;
    }
    return JobRequests.sendEach(
        "qmove",
        invocation,
        context,
        operands.subList(1, operands.size()),
        jobId ->
            Request.newBuilder()
                .setMove(MoveJob.newBuilder().setJobId(jobId).setDestination(destination)));
  }
}
