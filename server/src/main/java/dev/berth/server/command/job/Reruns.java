package dev.berth.server.command.job;

import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.RerunJob;
import dev.berth.proto.Response;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import java.util.List;

/**
 * qrerun: an operator sends a running job back to its queue. Its mother superior kills it, and its
 * end queues it again (as a preemption's does) instead of completing it. No job is queued while a
 * copy may still run: Torque's -f (for a mom that does not answer) has no counterpart here, where a
 * node that does not answer is marked down, which queues its rerunnable jobs again. Only rerunnable
 * jobs, as in Torque; a queued job is left as it is. Unlike Torque, a completed job is not queued
 * again: submit it again.
 */
public final class Reruns {
  private Reruns() {}

  public static Outcome rerun(ClusterState s, Caller caller, RerunJob request, Context ctx) {
    Job job = JobControl.find(s, caller, request.getJobId(), ctx);
    Permissions.requireOperator(s, caller, "rerun jobs (qrerun)");
    Outcome out = new Outcome();
    String by = caller.principal();
    List<Job> members = JobControl.members(s, job);
    for (Job member : members) {
      switch (member.getState()) {
        case QUEUED -> {}
        case RUNNING -> {
          if (!member.getRerunnable()) {
            throw new CommandException(
                Error.Code.NOT_RERUNNABLE,
                "job " + member.getId() + " is not rerunnable (Rerunable = False, qsub -r n)");
          }
          if (!member.getDeleteRequestedBy().isEmpty()
              && member.getRerunRequestedBy().isEmpty()
              && member.getPreemptedBy().isEmpty()) {
            throw new CommandException(
                Error.Code.BAD_STATE, "job " + member.getId() + " is being deleted");
          }
          if (member.getRerunRequestedBy().isEmpty()) {
            out.event(
                Event.newBuilder()
                    .setJobKillRequested(
                        JobKillRequested.newBuilder()
                            .setJobId(member.getId())
                            .setReason("rerun by " + by)
                            .setRerun(true)));
          }
        }
        default -> {
          if (members.size() == 1) {
            throw new CommandException(
                Error.Code.BAD_STATE,
                "job "
                    + member.getId()
                    + " is "
                    + member.getState().name().toLowerCase(java.util.Locale.ROOT)
                    + ", not running: only a running job is rerun");
          }
        }
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }
}
