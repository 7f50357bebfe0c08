package dev.berth.tools.scontrol;

import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.AlterJob;
import dev.berth.proto.HoldJob;
import dev.berth.proto.Job;
import dev.berth.proto.MoveJob;
import dev.berth.proto.ReleaseJob;
import dev.berth.proto.Request;
import dev.berth.proto.RerunJob;
import dev.berth.proto.Response;
import dev.berth.proto.SignalJob;
import dev.berth.proto.StatJobs;
import dev.berth.tools.qsub.ScontrolUpdate;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * scontrol's job changes as the requests qhold, qrls, qrerun, qsig, qalter and qmove send, with the
 * same permissions: hold (an operator's hold on another user's job is an operator hold, as Slurm's
 * administrator hold; everyone else's a user hold), uhold, release (the user hold, and the operator
 * hold where the job has one), requeue, suspend, resume and update. A failure prints Slurm's {@code
 * REASON for job ID} and makes the status 1; the other jobs are still changed.
 */
final class JobChanges {
  private final ServerConnection server;
  private final Output out;
  private final List<Job> jobs;
  private int status;

  /**
   * Whether a failure also gets Slurm's second line, {@code slurm_suspend error: REASON}, which
   * Slurm's scontrol prints for hold, uhold and release (its hold goes through the suspend path).
   */
  private boolean suspendLine;

  private JobChanges(ServerConnection server, Output out, List<Job> jobs) {
    this.server = server;
    this.out = out;
    this.jobs = jobs;
  }

  private static JobChanges listing(ServerConnection server, Invocation inv, Output out)
      throws ServerUnavailableException {
    Response r =
        server.call(
            Request.newBuilder()
                .setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true).setBrief(true)));
    if (SlurmCommandLine.refused(inv, r)) {
      return null;
    }
    return new JobChanges(server, out, r.getJobs().getJobsList());
  }

  /** {@code hold|holdu|uhold|release|requeue|suspend|resume ID...}. */
  static int apply(
      ServerConnection server, Invocation inv, Output out, String keyword, List<String> words)
      throws ServerUnavailableException {
    JobChanges changes = listing(server, inv, out);
    if (changes == null) {
      return 1;
    }
    String caller = SlurmCommandLine.caller(inv);
    String k = keyword.toLowerCase(Locale.ROOT);
    changes.suspendLine = k.startsWith("hold") || k.startsWith("uhold") || k.startsWith("rel");
    for (String word : words) {
      for (String id : ids(word)) {
        changes.send(
            id,
            job -> {
              String jobId = job.getId();
              if (k.startsWith("uhold") || k.startsWith("holdu")) {
                return Request.newBuilder()
                    .setHold(HoldJob.newBuilder().setJobId(jobId).setHoldTypes("u"));
              }
              if (k.startsWith("hold")) {
                String type = job.getEuser().equals(caller) ? "u" : "o";
                return Request.newBuilder()
                    .setHold(HoldJob.newBuilder().setJobId(jobId).setHoldTypes(type));
              }
              if (k.startsWith("rel")) {
                String types = job.getHolds().getOther() ? "uo" : "u";
                return Request.newBuilder()
                    .setRelease(ReleaseJob.newBuilder().setJobId(jobId).setHoldTypes(types));
              }
              if (k.startsWith("req")) {
                return Request.newBuilder().setRerun(RerunJob.newBuilder().setJobId(jobId));
              }
              String signal = k.startsWith("su") ? "suspend" : "resume";
              return Request.newBuilder()
                  .setSignal(SignalJob.newBuilder().setJobId(jobId).setSignal(signal));
            });
      }
    }
    return changes.status;
  }

  /** {@code update JobId=ID ...}: the attributes altered, then the move to the partition. */
  static int update(
      ServerConnection server, Invocation inv, Output out, ScontrolUpdate.Update update)
      throws ServerUnavailableException {
    JobChanges changes = listing(server, inv, out);
    if (changes == null) {
      return 1;
    }
    for (String id : ids(update.jobs())) {
      if (!update.attributes().isEmpty()) {
        changes.send(
            id,
            job ->
                Request.newBuilder()
                    .setAlter(
                        AlterJob.newBuilder()
                            .setJobId(job.getId())
                            .addAllAttributes(update.attributes())));
      }
      if (update.partition() != null) {
        changes.send(
            id,
            job ->
                Request.newBuilder()
                    .setMove(
                        MoveJob.newBuilder()
                            .setJobId(job.getId())
                            .setDestination(update.partition())));
      }
    }
    return changes.status;
  }

  /** A job list word: {@code 12}, {@code 12_3}, {@code JobId=12}, {@code 12,13}. */
  private static List<String> ids(String word) {
    String w = word;
    for (String prefix : List.of("jobid=", "job=")) {
      if (w.regionMatches(true, 0, prefix, 0, prefix.length())) {
        w = w.substring(prefix.length());
      }
    }
    List<String> ids = new ArrayList<>();
    for (String id : w.split(",")) {
      if (!id.isEmpty()) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** The request for each job the id names; Slurm's words for an id that names none. */
  private void send(String id, Function<Job, Request.Builder> request)
      throws ServerUnavailableException {
    List<Job> targets = SlurmJob.targets(jobs, id);
    if (targets.isEmpty()) {
      failed("Invalid job id specified", id);
      return;
    }
    for (Job job : targets) {
      Response answer = server.call(request.apply(job));
      if (answer.hasError()) {
        failed(answer.getError().getMessage(), id);
      }
    }
  }

  private void failed(String reason, String id) {
    status = out.fail(reason + " for job " + id);
    if (suspendLine) {
      out.fail("slurm_suspend error: " + reason);
    }
  }
}
