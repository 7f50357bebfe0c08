package dev.berth.tools.scancel;

import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SignalJob;
import dev.berth.proto.StatJobs;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code scancel}: cancels jobs as Slurm's scancel does, any job the caller may delete (qsub's and
 * sbatch's): those named by id ({@code 12}, an array task {@code 12_3}, a whole array {@code 12}),
 * and those every filter given takes ({@code -u}, {@code --me}, {@code -n}, {@code -p}, {@code -A},
 * {@code -t}), with {@code -s} a signal instead of the cancel (running jobs only). Options Berth
 * does not honour yet are refused by name. Exit status 0, or 1 when anything failed.
 */
public final class Scancel {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("account", 'A', Arg.REQUIRED),
          new Option("batch", 'b', Arg.NONE),
          new Option("clusters", 'M', Arg.REQUIRED),
          new Option("ctld", (char) 0, Arg.NONE),
          new Option("full", 'f', Arg.NONE),
          new Option("help", (char) 0, Arg.NONE),
          new Option("hurry", 'H', Arg.NONE),
          new Option("interactive", 'i', Arg.NONE),
          new Option("jobname", (char) 0, Arg.REQUIRED),
          new Option("me", (char) 0, Arg.NONE),
          new Option("name", 'n', Arg.REQUIRED),
          new Option("nodelist", 'w', Arg.REQUIRED),
          new Option("partition", 'p', Arg.REQUIRED),
          new Option("qos", 'q', Arg.REQUIRED),
          new Option("quiet", 'Q', Arg.NONE),
          new Option("reservation", 'R', Arg.REQUIRED),
          new Option("sibling", (char) 0, Arg.REQUIRED),
          new Option("signal", 's', Arg.REQUIRED),
          new Option("state", 't', Arg.REQUIRED),
          new Option("usage", (char) 0, Arg.NONE),
          new Option("user", 'u', Arg.REQUIRED),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("wckey", (char) 0, Arg.REQUIRED));

  /** What Berth's scancel honours so far (docs/slurm.md); the other options are refused. */
  private static final Set<String> HONOURED =
      Set.of(
          "account",
          "help",
          "jobname",
          "me",
          "name",
          "partition",
          "quiet",
          "signal",
          "state",
          "usage",
          "user",
          "version");

  static final String USAGE =
      "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
          + "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
          + "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
          + "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
          + "               [job_id[_array_id][.step_id]]";

  private Scancel() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read =
        SlurmCommandLine.read(inv, OPTIONS, HONOURED, Map.of("jobname", "name"), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    Map<String, String> given = read.options();
    List<String> ids = read.operands();
    Set<SlurmJob.State> states;
    try {
      states = states(given.get("state"));
    } catch (IllegalArgumentException e) {
      inv.err().println("scancel: error: " + e.getMessage());
      return 1;
    }
    boolean filtered =
        given.containsKey("user")
            || given.containsKey("me")
            || given.containsKey("name")
            || given.containsKey("partition")
            || given.containsKey("account")
            || states != null;
    if (ids.isEmpty() && !filtered) {
      inv.err().println("scancel: error: No job identification provided");
      return 1;
    }
    String user = given.containsKey("me") ? SlurmCommandLine.caller(inv) : given.get("user");
    // ids alone, to be killed: Slurm 22.05's scancel does not look the jobs up first (its
    // has_default_opt), so an id of no job, or of one that has ended, is quietly done
    boolean plain = !filtered && !given.containsKey("signal");
    boolean quiet = given.containsKey("quiet");
    try (ServerConnection server = context.connector().connect(inv)) {
      if (plain) {
        return cancelEach(inv, server, ids, quiet);
      }
      Response r =
          server.call(
              Request.newBuilder()
                  .setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true).setBrief(true)));
      if (SlurmCommandLine.refused(inv, r)) {
        return 1;
      }
      int status = 0;
      List<Job> chosen = new ArrayList<>();
      for (String id : ids) {
        List<Job> matched = new ArrayList<>();
        for (Job job : r.getJobs().getJobsList()) {
          if (new SlurmJob(job, 0).answersTo(id) && takes(job, given, user, states)) {
            matched.add(job);
          }
        }
        if (matched.isEmpty()) {
          if (!quiet) {
            inv.err()
                .println(
                    "scancel: error: Kill job error on job id "
                        + ControlCharacters.escape(id)
                        + ": Invalid job id specified");
          }
          status = 1;
        }
        chosen.addAll(matched);
      }
      if (ids.isEmpty()) {
        for (Job job : r.getJobs().getJobsList()) {
          if (!SlurmJob.arrayParent(job)
              && job.getState() != JobState.COMPLETED
              && takes(job, given, user, states)) {
            chosen.add(job);
          }
        }
      }
      String signal = given.get("signal");
      for (Job job : chosen) {
        String id = job.getId();
        Request.Builder request =
            signal == null
                ? Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId(id))
                : Request.newBuilder()
                    .setSignal(SignalJob.newBuilder().setJobId(id).setSignal(signal(signal)));
        Response answer = server.call(request);
        if (signal == null && ended(answer)) {
          continue; // it ended since the listing (a job it depended on was just cancelled, say)
        }
        if (answer.hasError()) {
          if (!quiet) {
            inv.err()
                .println(
                    "scancel: error: "
                        + (signal == null ? "Kill job error" : "Signal job error")
                        + " on job id "
                        + new SlurmJob(job, 0).id()
                        + ": "
                        + ControlCharacters.escape(answer.getError().getMessage()));
          }
          status = 1;
        }
      }
      return status;
    } catch (ServerUnavailableException e) {
      inv.err().println("scancel: error: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Ids alone: each deleted as it is named, without listing the jobs first ({@code 12}, else the
   * array {@code 12[]}; {@code 12_3} as {@code 12[3]}), as Slurm 22.05's scancel sends them; an id
   * of no job, or of one that has ended, is taken as done, and only a refusal is reported.
   */
  private static int cancelEach(
      Invocation inv, ServerConnection server, List<String> ids, boolean quiet)
      throws ServerUnavailableException {
    int status = 0;
    for (String id : ids) {
      String berthId = SlurmJobs.toBerth(id);
      Response answer = delete(server, berthId);
      if (unknown(answer) && !berthId.contains("[")) {
        answer = delete(server, berthId + "[]"); // the whole array
      }
      if (!answer.hasError() || unknown(answer) || ended(answer)) {
        continue;
      }
      if (!quiet) {
        inv.err()
            .println(
                "scancel: error: Kill job error on job id "
                    + ControlCharacters.escape(id)
                    + ": "
                    + ControlCharacters.escape(answer.getError().getMessage()));
      }
      status = 1;
    }
    return status;
  }

  private static Response delete(ServerConnection server, String id)
      throws ServerUnavailableException {
    return server.call(Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId(id)));
  }

  private static boolean unknown(Response answer) {
    return answer.hasError()
        && answer.getError().getCode() == dev.berth.proto.Error.Code.UNKNOWN_JOB;
  }

  private static boolean ended(Response answer) {
    return answer.hasError()
        && answer.getError().getCode() == dev.berth.proto.Error.Code.BAD_STATE
        && answer.getError().getMessage().endsWith("has already completed");
  }

  /** Whether every filter given takes {@code job}. */
  private static boolean takes(
      Job job, Map<String, String> given, String user, Set<SlurmJob.State> states) {
    return SlurmCommandLine.admits(user, job.getEuser())
        && SlurmCommandLine.admits(given.get("name"), job.getName())
        && SlurmCommandLine.admits(given.get("partition"), job.getQueue())
        && SlurmCommandLine.admits(given.get("account"), job.getAccount())
        && (states == null || states.contains(new SlurmJob(job, 0).state()));
  }

  /** {@code -t}: PENDING, RUNNING or SUSPENDED (or PD, R, S), in any case; null without it. */
  private static Set<SlurmJob.State> states(String list) {
    if (list == null) {
      return null;
    }
    Set<SlurmJob.State> states = java.util.EnumSet.noneOf(SlurmJob.State.class);
    for (String name : list.split(",")) {
      SlurmJob.State s = SlurmJob.State.named(name.strip());
      if (s != SlurmJob.State.PENDING
          && s != SlurmJob.State.RUNNING
          && s != SlurmJob.State.SUSPENDED) {
        throw new IllegalArgumentException("Invalid job state specified: " + name.strip());
      }
      states.add(s);
    }
    return states;
  }

  /** Slurm's signal names ({@code USR1}, {@code SIGUSR1}, {@code 10}) as the server takes them. */
  private static String signal(String name) {
    return name.toUpperCase(Locale.ROOT);
  }
}
