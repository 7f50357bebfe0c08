package dev.berth.server.command.job;

import static dev.berth.core.AttributeNames.QUEUE;

import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.MoveJob;
import dev.berth.proto.OrderJobs;
import dev.berth.proto.Queue;
import dev.berth.proto.Response;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.EligibleKey;
import java.util.List;

/**
 * qmove and qorder: jobs that have not started change queue, or swap their places in the order the
 * scheduler takes jobs of equal priority in. As Torque: the owner may move their own jobs and order
 * two of their own; a queue takes a job only if it is enabled, admits its owner (acl_users), allows
 * its resources and has room (max_queuable); a manager's move skips those checks, and qorder skips
 * enabled and max_queuable.
 */
public final class QueueMoves {
  private QueueMoves() {}

  public static Outcome move(ClusterState s, Caller caller, MoveJob request, Context ctx) {
    Job job = JobControl.find(s, caller, request.getJobId(), ctx);
    Permissions.requireControl(s, caller, job, "move");
    if (!job.getArrayParent().isEmpty()) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          "a subjob moves with its array: qmove the array " + job.getArrayParent());
    }
    Queue to = SubmitJobs.destination(s, request.getDestination(), ctx.serverName());
    if (to.getName().equals(job.getQueue())) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST, "Job " + job.getId() + " already in queue " + to.getName());
    }
    List<Job> moving = withMembers(s, job);
    for (Job j : moving) {
      requireNotStarted(j, "moved");
    }
    Outcome out = new Outcome();
    ClusterState view = s;
    for (Job j : moving) {
      view = alter(out, view, j, j.toBuilder().setQueue(to.getName()).build(), QUEUE, ctx);
    }
    if (!Permissions.isManager(s, caller)) {
      SubmitJobs.requireEnabled(to);
      requireAccepts(view, to, view.job(job.getId()).orElseThrow());
      QueuedJobLimits.check(view, to, job.getEuser(), 0);
    }
    Feasible.require(
        view, view.job(job.getId()).orElseThrow(), "job can never run in " + to.getName());
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  public static Outcome order(ClusterState s, Caller caller, OrderJobs request, Context ctx) {
    Job first = JobControl.find(s, caller, request.getJobId(), ctx);
    Job second = JobControl.find(s, caller, request.getOtherJobId(), ctx);
    for (Job j : List.of(first, second)) {
      Permissions.requireControl(s, caller, j, "order");
      if (!j.getArrayRequest().isEmpty() || !j.getArrayParent().isEmpty()) {
        throw new CommandException(
            Error.Code.INVALID_REQUEST,
            "qorder takes plain jobs; "
                + j.getId()
                + " is an array's (its subjobs keep the order of their indices)");
      }
      requireNotStarted(j, "reordered");
    }
    if (first.getId().equals(second.getId())) {
      throw new CommandException(Error.Code.INVALID_REQUEST, "qorder needs two different jobs");
    }
    Outcome out = new Outcome();
    ClusterState view = s;
    boolean swapQueues = !first.getQueue().equals(second.getQueue());
    String changed = swapQueues ? QUEUE : "queue_rank";
    view = alter(out, view, first, swapped(first, second, swapQueues), changed, ctx);
    view = alter(out, view, second, swapped(second, first, swapQueues), changed, ctx);
    if (swapQueues && !Permissions.isManager(s, caller)) {
      for (Job j : List.of(first, second)) {
        Job moved = view.job(j.getId()).orElseThrow();
        requireAccepts(view, view.queue(moved.getQueue()).orElseThrow(), moved);
      }
    }
    if (swapQueues) {
      for (Job j : List.of(first, second)) {
        Job moved = view.job(j.getId()).orElseThrow();
        Feasible.require(view, moved, "job can never run in " + moved.getQueue());
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /** {@code job} with {@code other}'s place, and its queue if {@code queues}. */
  private static Job swapped(Job job, Job other, boolean queues) {
    Job.Builder b = job.toBuilder().setQueueRank(EligibleKey.rank(other));
    if (queues) {
      b.setQueue(other.getQueue());
    }
    return b.build();
  }

  /** An array's parent stands for itself and its subjobs. */
  private static List<Job> withMembers(ClusterState s, Job job) {
    if (job.getArrayRequest().isEmpty()) {
      return List.of(job);
    }
    List<Job> all = new java.util.ArrayList<>(JobControl.members(s, job));
    all.add(0, job);
    return all;
  }

  private static void requireNotStarted(Job job, String what) {
    switch (job.getState()) {
      case QUEUED, HELD, WAITING -> {}
      case COMPLETED ->
          throw new CommandException(
              Error.Code.BAD_STATE, "job " + job.getId() + " has completed and cannot be " + what);
      default ->
          throw new CommandException(
              Error.Code.BAD_STATE, "job " + job.getId() + " is running and cannot be " + what);
    }
  }

  /** The queue admits the job's owner and allows its resources. */
  private static void requireAccepts(ClusterState s, Queue q, Job job) {
    SubmitJobs.requireAdmits(q, job.getEuser());
    ResourceLimits.check(job, q, s);
  }

  /** Records the job as altered (its state stays), and the state it leaves. */
  private static ClusterState alter(
      Outcome out, ClusterState view, Job job, Job altered, String changed, Context ctx) {
    if (altered.getState() == JobState.COMPLETED) {
      return view;
    }
    return out.event(view, Alterations.event(job, altered, List.of(changed)), ctx.nowMillis());
  }
}
