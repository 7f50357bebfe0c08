package dev.berth.tools.jobctl;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import java.util.List;
import java.util.Optional;

/**
 * {@code qdel [-p | -W delay | -m message] job_identifier... | all}: deletes jobs. {@code -p}
 * purges (the server forgets the job even if its mom does not answer). {@code all} (or {@code ALL})
 * deletes every job the caller can see that is not exiting or completed (those too with {@code
 * -p}), skipping jobs the server says the caller may not delete. {@code -W} and {@code -m} are
 * checked as Torque checks them but the protocol does not carry them yet: qdel warns and deletes
 * with the server's kill_delay.
 */
public final class Qdel {
  private static final String USAGE =
      "usage: qdel [{ -p | -W delay | -m message}] [<JOBID>[<JOBID>]|'all'|'ALL']...\n"
          + "       -m, -p, and -W are mutually exclusive\n";

  private Qdel() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    Getopt.Result parsed;
    boolean purge = false;
    try {
      parsed = Getopt.parse("m:pW:", invocation.args());
      purge = checkOptions(parsed.options(), invocation);
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
    try (ServerConnection transport = context.connector().connect(invocation)) {
      JobRequests requests = new JobRequests("qdel", invocation, transport);
      for (String id : parsed.operands()) {
        if (id.equals("all") || id.equals("ALL")) {
          deleteAll(requests, invocation, purge);
        } else {
          requests.send(id, request(purge));
        }
      }
      return requests.status();
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  /** Torque's rules: one of -m, -p, -W; -W all digits; no '=' in -m. Returns whether -p. */
  private static boolean checkOptions(List<Getopt.Option> options, Invocation invocation)
      throws Getopt.UsageException {
    if (options.size() > 1) {
      throw new Getopt.UsageException(null);
    }
    for (Getopt.Option option : options) {
      switch (option.name()) {
        case 'W':
          if (option.value().isEmpty() || !option.value().chars().allMatch(Character::isDigit)) {
            throw new Getopt.UsageException("illegal -W value");
          }
          invocation.error(
              "warning: -W is not supported by this server yet; the server's kill_delay applies");
          return false;
        case 'm':
          if (option.value().indexOf('=') >= 0) {
            throw new Getopt.UsageException(null);
          }
          invocation.error("warning: -m is not supported by this server yet; no message is sent");
          return false;
        default:
          return true;
      }
    }
    return false;
  }

  private static JobRequests.RequestFor request(boolean purge) {
    return id ->
        Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId(id).setPurge(purge));
  }

  private static void deleteAll(JobRequests requests, Invocation invocation, boolean purge)
      throws ServerUnavailableException {
    Response response =
        requests.transport().call(Request.newBuilder().setStatJobs(StatJobs.getDefaultInstance()));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.JOBS);
    if (failure.isPresent()) {
      invocation.err().println(ErrorText.general("qdel", failure.get()));
      return;
    }
    List<Job> jobs = response.getJobs().getJobsList();
    if (jobs.isEmpty()) {
      invocation.err().println("qdel: cannot find any jobs to delete");
      return;
    }
    for (Job job : jobs) {
      boolean ending = job.getState() == JobState.EXITING || job.getState() == JobState.COMPLETED;
      if (purge || !ending) {
        requests.sendAllMember(job.getId(), request(purge));
      }
    }
  }
}
