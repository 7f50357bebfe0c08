package dev.berth.server.command.job;

import dev.berth.core.AttributeNames;
import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.core.pbs.SetBy;
import dev.berth.proto.Ack;
import dev.berth.proto.AlterJob;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobHeld;
import dev.berth.proto.JobState;
import dev.berth.proto.Queue;
import dev.berth.proto.Response;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * qalter: new attribute values for a job that has not started, checked as at submission. A hold
 * ({@code qalter -h}) becomes a JobHeld event, since altering never changes a job's state.
 */
public final class AlterJobs {
  /**
   * Attributes that identify the job or its history and never change after submission. A new
   * Execution_Time, say, would have to move the job between Q and W, which an alter never does;
   * resubmit with qsub -a instead.
   */
  private static final Set<String> FIXED =
      AttributeTable.JOB.definitions().stream()
          .filter(d -> d.setBy() == SetBy.SUBMITTER)
          .map(AttributeDef::name)
          .collect(Collectors.toUnmodifiableSet());

  private AlterJobs() {}

  public static Outcome alter(ClusterState s, Caller caller, AlterJob request, Context ctx) {
    Job job = JobControl.find(s, caller, request.getJobId(), ctx);
    Permissions.requireControl(s, caller, job, "alter");
    if (!job.getArrayRequest().isEmpty()) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          "qalter of a whole job array is not supported; alter its subjobs one by one");
    }
    if (job.getState() == JobState.RUNNING || job.getState() == JobState.EXITING) {
      throw new CommandException(
          Error.Code.MODIFY_RUNNING,
          "job " + job.getId() + " is running; its attributes are fixed");
    }
    if (job.getState() == JobState.COMPLETED) {
      throw new CommandException(Error.Code.BAD_STATE, "job " + job.getId() + " has completed");
    }
    Job.Builder next = job.toBuilder();
    List<String> changed = new ArrayList<>();
    String holds = null;
    for (Attribute a : request.getAttributesList()) {
      if (FIXED.contains(a.getName())) {
        throw new CommandException(
            Error.Code.READ_ONLY_ATTRIBUTE, "attribute " + a.getName() + " cannot be altered");
      }
      if (a.getName().equals(AttributeNames.HOLD_TYPES)) {
        holds = a.getValue();
        continue;
      }
      JobAttributes.apply(next, a);
      changed.add(a.getResource().isEmpty() ? a.getName() : a.getName() + "." + a.getResource());
    }
    Outcome out = new Outcome();
    if (!changed.isEmpty()) {
      Queue queue = s.queue(job.getQueue()).orElseThrow();
      next.setResources(JobAttributes.retype(next.getResources()));
      if (next.hasContainer()) {
        ContainerAttributes.checkWhole(next.getContainer());
      }
      MemoryPerNode.check(next.getResources());
      ResourceLimits.check(next.build(), queue, s);
      AttributeValues.checkTotal(next.build());
      Feasible.require(s, next.build(), "the altered job could never run");
      out.event(Alterations.event(job, next.build(), changed));
    }
    if (holds != null) {
      var h = JobAttributes.holds(holds);
      if ((h.getOther() || h.getSystem()) && !Permissions.isOperator(s, caller)) {
        throw new CommandException(
            Error.Code.PERMISSION, "only operators and managers may set hold types o and s");
      }
      if (h.getUser() || h.getOther() || h.getSystem()) {
        out.event(
            Event.newBuilder().setJobHeld(JobHeld.newBuilder().setJobId(job.getId()).setHolds(h)));
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }
}
