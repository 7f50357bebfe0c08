package dev.berth.server.command.job;

import dev.berth.core.BadValueException;
import dev.berth.core.JobIds;
import dev.berth.core.Signals;
import dev.berth.core.Suspensions;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobDeleted;
import dev.berth.proto.JobExited;
import dev.berth.proto.JobHeld;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.JobReleased;
import dev.berth.proto.JobState;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Response;
import dev.berth.proto.SignalJobTask;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;

/** qdel, qhold, qrls, qsig and qchkpt: the commands that act on existing jobs by id. */
public final class JobControl {
  /** Torque's exit status for a job purged with qdel -p while it ran (256 + SIGKILL). */
  static final int PURGED_STATUS = ExitStatus.killedBy(Signals.SIGKILL);

  private JobControl() {}

  /** The job a user named, if the user may see it; unknown and invisible read the same. */
  public static Job find(ClusterState s, Caller caller, String text, Context ctx) {
    String id;
    try {
      id = JobIds.canonical(text, ctx.serverName());
    } catch (BadValueException e) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, e.getMessage());
    }
    Job job = s.named(id).orElse(null);
    if (job == null || !Permissions.maySee(s, caller, job)) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, "Unknown Job Id " + id);
    }
    return job;
  }

  /** An array job stands for its subjobs; any other job for itself. */
  static List<Job> members(ClusterState s, Job job) {
    if (job.getArrayRequest().isEmpty()) {
      return List.of(job);
    }
    List<Job> subjobs = new ArrayList<>();
    String prefix = job.getNumber() + "[";
    for (Job j : s.jobs()) {
      if (j.getArrayParent().equals(job.getId()) && j.getId().startsWith(prefix)) {
        subjobs.add(j);
      }
    }
    subjobs.sort(java.util.Comparator.comparingInt(Job::getArrayIndex));
    return subjobs;
  }

  public static Outcome delete(
      ClusterState s, Caller caller, String text, boolean purge, Context ctx) {
    Job job = find(s, caller, text, ctx);
    Permissions.requireControl(s, caller, job, "delete");
    if (purge) {
      Permissions.requireManager(s, caller, "purge jobs (qdel -p)");
    }
    if (job.getState() == JobState.COMPLETED) {
      throw new CommandException(
          Error.Code.BAD_STATE, "job " + job.getId() + " has already completed");
    }
    Outcome out = new Outcome();
    String reason = "deleted by " + caller.principal();
    for (Job member : members(s, job)) {
      boolean holdsNodes =
          member.getState() == JobState.RUNNING || member.getState() == JobState.EXITING;
      if (purge && holdsNodes) {
        out.event(
            Event.newBuilder()
                .setJobExited(
                    JobExited.newBuilder()
                        .setJobId(member.getId())
                        .setExitStatus(PURGED_STATUS)
                        .setEndTime(ctx.nowSeconds())
                        .setResourcesUsed(member.getResourcesUsed())
                        .setReason("purged by " + caller.principal())));
      } else {
        end(member, reason, out);
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /**
   * Ends a job that is not an array's parent: deleted if it waits, killed if it runs (unless a
   * delete already asked; one being preempted or rerun would be requeued, and this makes its end a
   * delete).
   */
  public static void end(Job job, String reason, Outcome out) {
    switch (job.getState()) {
      case QUEUED, HELD, WAITING ->
          out.event(
              Event.newBuilder()
                  .setJobDeleted(JobDeleted.newBuilder().setJobId(job.getId()).setReason(reason)));
      case RUNNING, EXITING -> {
        if (job.getDeleteRequestedBy().isEmpty()
            || !job.getPreemptedBy().isEmpty()
            || !job.getRerunRequestedBy().isEmpty()) {
          out.event(
              Event.newBuilder()
                  .setJobKillRequested(
                      JobKillRequested.newBuilder().setJobId(job.getId()).setReason(reason)));
        }
      }
      default -> {}
    }
  }

  public static Outcome hold(
      ClusterState s, Caller caller, String text, String types, Context ctx) {
    Job job = find(s, caller, text, ctx);
    Holds holds = holdTypes(s, caller, job, types, "hold");
    Outcome out = new Outcome();
    for (Job member : members(s, job)) {
      switch (member.getState()) {
        case QUEUED, HELD, WAITING ->
            out.event(
                Event.newBuilder()
                    .setJobHeld(JobHeld.newBuilder().setJobId(member.getId()).setHolds(holds)));
        case RUNNING, EXITING -> {
          if (members(s, job).size() == 1) {
            throw new CommandException(
                Error.Code.BAD_STATE,
                "job " + member.getId() + " is running and cannot be held (no checkpointing)");
          }
        }
        default -> {
          if (members(s, job).size() == 1) {
            throw new CommandException(
                Error.Code.BAD_STATE, "job " + member.getId() + " has completed");
          }
        }
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  public static Outcome release(
      ClusterState s, Caller caller, String text, String types, Context ctx) {
    Job job = find(s, caller, text, ctx);
    Holds holds = holdTypes(s, caller, job, types, "release");
    Outcome out = new Outcome();
    for (Job member : members(s, job)) {
      if (member.getState() == JobState.HELD) {
        out.event(
            Event.newBuilder()
                .setJobReleased(JobReleased.newBuilder().setJobId(member.getId()).setHolds(holds)));
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  public static Outcome signal(
      ClusterState s, Caller caller, String text, String signal, Context ctx) {
    Job job = find(s, caller, text, ctx);
    Permissions.requireControl(s, caller, job, "signal");
    int number;
    try {
      number = Signals.parse(signal.isEmpty() ? "SIGTERM" : signal);
    } catch (BadValueException e) {
      throw new CommandException(Error.Code.UNKNOWN_SIGNAL, e.getMessage());
    }
    Outcome out = new Outcome();
    for (Job member : members(s, job)) {
      if (Suspensions.suspended(member)) {
        // a SIGCONT would undo a suspension without a freezer; anything else waits for it anyway
        if (members(s, job).size() == 1) {
          throw new CommandException(
              Error.Code.BAD_STATE,
              "job "
                  + member.getId()
                  + " is suspended for job "
                  + member.getSuspendedFor()
                  + "; signal it once it runs again");
        }
      } else if (member.getState() == JobState.RUNNING && member.getExecNodesCount() > 0) {
        out.notice(
            member.getExecNodes(0).getNode(),
            MomInbound.newBuilder()
                .setSignal(SignalJobTask.newBuilder().setJobId(member.getId()).setSignal(number))
                .build());
      } else if (members(s, job).size() == 1) {
        throw new CommandException(
            Error.Code.BAD_STATE, "job " + member.getId() + " is not running");
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /**
   * qchkpt: Berth has no checkpoint method, so no job is checkpointable; Torque's answer for a job
   * without checkpointing, once the caller may act on the job.
   */
  public static Outcome checkpoint(ClusterState s, Caller caller, String text, Context ctx) {
    Job job = find(s, caller, text, ctx);
    Permissions.requireControl(s, caller, job, "checkpoint");
    throw new CommandException(
        Error.Code.INVALID_REQUEST, "job is not checkpointable (Berth checkpoints no job)");
  }

  private static Holds holdTypes(
      ClusterState s, Caller caller, Job job, String types, String what) {
    Permissions.requireControl(s, caller, job, what);
    Holds holds = JobAttributes.holds(types.isEmpty() ? "u" : types);
    if ((holds.getOther() || holds.getSystem()) && !Permissions.isOperator(s, caller)) {
      throw new CommandException(
          Error.Code.PERMISSION, "only operators and managers may " + what + " hold types o and s");
    }
    return holds;
  }
}
