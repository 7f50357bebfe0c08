package dev.berth.server.command;

import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.JobRequeued;
import dev.berth.proto.RerunJob;
import dev.berth.proto.Response;
import dev.berth.server.state.ClusterState;

/**
 * qrerun: an operator sends a running job back to its queue. Its mother superior kills it, and its
 * end queues it again (as a preemption's does) instead of completing it; {@code -f} queues it at
 * once, for a job whose nodes do not answer (a copy still running on a node that reports again is
 * killed then, as any job the server no longer runs there). Only rerunnable jobs, as in Torque,
 * whatever -f says; a queued job is left as it is. Unlike Torque, a completed job is not queued
 * again: submit it again.
 */
final class Reruns {
  private Reruns() {}

  static Outcome rerun(ClusterState s, Caller caller, RerunJob request, Context ctx) {
    Job job = JobControl.find(s, caller, request.getJobId(), ctx);
    Permissions.requireOperator(s, caller, "rerun jobs (qrerun)");
    Outcome out = new Outcome();
    String by = caller.principal();
    for (Job member : JobControl.members(s, job)) {
      switch (member.getState()) {
        case QUEUED -> {}
        case RUNNING -> {
          if (!member.getRerunnable()) {
            throw new CommandException(
                Error.Code.NOT_RERUNNABLE, "job " + member.getId() + " not rerunnable");
          }
          if (!member.getDeleteRequestedBy().isEmpty()
              && member.getRerunRequestedBy().isEmpty()
              && member.getPreemptedBy().isEmpty()) {
            throw new CommandException(
                Error.Code.BAD_STATE, "job " + member.getId() + " is being deleted");
          }
          if (request.getForce()) {
            out.event(
                Event.newBuilder()
                    .setJobRequeued(
                        JobRequeued.newBuilder()
                            .setJobId(member.getId())
                            .setReason("requeued: forced rerun by " + by)));
          } else if (member.getRerunRequestedBy().isEmpty()) {
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
          if (JobControl.members(s, job).size() == 1) {
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
