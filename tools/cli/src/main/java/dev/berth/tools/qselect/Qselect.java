package dev.berth.tools.qselect;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Job;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatQueues;
import dev.berth.tools.cli.CliContext;

/**
 * {@code qselect [-a [op]date_time] [-A account] [-e] [-c [op]interval] [-h hold_list] [-l
 * resource_list] [-N name] [-p [op]priority] [-q destination] [-r y|n] [-s states] [-u user_list]}:
 * the ids of the jobs that meet every criterion, one a line, as Torque 6's qselect prints them
 * (subjobs each, the array itself not), among the jobs the caller may see.
 */
public final class Qselect {
  private static final String USAGE =
      "usage: qselect [-a [op]date_time] [-A account_string] [-e] [-c [op]interval] \n"
          + "                          [-h hold_list] [-l resource_list] [-N name] [-p [op]priority] \n"
          + "                          [-q destination] [-r y|n] [-s states] [-u user_name]\n";

  private Qselect() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    JobSelection selection = new JobSelection();
    try {
      Getopt.Result parsed = Getopt.parse("a:A:ec:h:l:N:p:q:r:s:u:", invocation.args());
      if (!parsed.operands().isEmpty()) {
        throw new Getopt.UsageException(null);
      }
      for (Getopt.Option option : parsed.options()) {
        try {
          selection.add(
              option.name(),
              option.value() == null ? "" : option.value(),
              context.clock().withZone(invocation.zone()));
        } catch (JobSelection.IllegalValue e) {
          invocation.error(e.getMessage());
          invocation.err().print(USAGE);
          return ExitCodes.USAGE;
        }
      }
    } catch (Getopt.UsageException e) {
      if (e.getMessage() != null) {
        invocation.error(e.getMessage());
      }
      invocation.err().print(USAGE);
      return ExitCodes.USAGE;
    }
    try (ServerConnection server = context.connector().connect(invocation)) {
      if (selection.queue() != null && !queueExists(server, selection.queue())) {
        invocation.error("Unknown queue destination");
        return ExitCodes.USAGE;
      }
      Response r =
          server.call(
              Request.newBuilder().setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true)));
      if (r.hasError()) {
        invocation.error(r.getError().getMessage());
        return r.getError().getCodeValue() % 256;
      }
      for (Job job : r.getJobs().getJobsList()) {
        if (job.getArrayRequest().isEmpty() && selection.selects(job)) {
          invocation.out().println(job.getId());
        }
      }
      return ExitCodes.OK;
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  private static boolean queueExists(ServerConnection server, String queue)
      throws ServerUnavailableException {
    Response r =
        server.call(Request.newBuilder().setStatQueues(StatQueues.newBuilder().addNames(queue)));
    return !r.hasError() && r.getQueues().getQueuesCount() > 0;
  }
}
