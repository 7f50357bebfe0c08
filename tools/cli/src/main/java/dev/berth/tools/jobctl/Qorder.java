package dev.berth.tools.jobctl;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.OrderJobs;
import dev.berth.proto.Request;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Usage;
import java.util.List;
import java.util.Optional;

/**
 * {@code qorder job_identifier job_identifier}: two jobs, neither running nor ended, swap their
 * places in the order the scheduler takes jobs of equal priority in, and their queues if they
 * differ. Both ids are checked before the one request is sent ({@code qorder: illegally formed job
 * identifier: 1x}, exit 1); a server error names the first job, as the other job commands print
 * theirs.
 */
public final class Qorder {
  private static final String USAGE = "usage: qorder job_identifier job_identifier\n";

  private Qorder() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    List<String> operands;
    try {
      operands = Getopt.parse("", invocation.args()).operands();
      if (operands.size() != 2) {
        throw new Getopt.UsageException(null);
      }
    } catch (Getopt.UsageException e) {
      return Usage.refuse(invocation, e, USAGE);
    }
    try (ServerConnection transport = context.connector().connect(invocation)) {
      JobRequests requests = new JobRequests("qorder", invocation, transport);
      Optional<String> first = requests.canonical(operands.get(0));
      if (first.isEmpty()) {
        return requests.status();
      }
      Optional<String> second = requests.canonical(operands.get(1));
      if (second.isEmpty()) {
        return requests.status();
      }
      requests.sendCanonical(
          first.get(),
          jobId ->
              Request.newBuilder()
                  .setOrder(OrderJobs.newBuilder().setJobId(jobId).setOtherJobId(second.get())));
      return requests.status();
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
