package dev.berth.server.command.schedule;

import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobReleased;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Response;
import dev.berth.proto.RunJobNow;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.scheduler.Placement;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.job.JobControl;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * qrun: an operator starts a job now, whatever its priority, the running-job limits and the
 * scheduler's policy, on the nodes named (in order: the first is the mother superior) or wherever
 * it fits. What the nodes have free, their state and the reservations still rule: an operator
 * cannot place two jobs on one CPU. A held job's holds go; a waiting job still waits.
 */
public final class RunNow {
  private RunNow() {}

  public static Outcome run(ClusterState s, Caller caller, RunJobNow request, Context ctx) {
    Job job = JobControl.find(s, caller, request.getJobId(), ctx);
    Permissions.requireOperator(s, caller, "run jobs (qrun)");
    if (!job.getArrayRequest().isEmpty()) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          "cannot run a job array: run its subjobs (" + job.getId().replace("[]", "[N]") + ")");
    }
    switch (job.getState()) {
      case QUEUED, HELD -> {}
      case RUNNING, EXITING ->
          throw new CommandException(Error.Code.BAD_STATE, "job already running");
      case WAITING ->
          throw new CommandException(
              Error.Code.BAD_STATE,
              "job " + job.getId() + " is waiting for its execution time or a dependency");
      default ->
          throw new CommandException(Error.Code.BAD_STATE, "job " + job.getId() + " has completed");
    }
    if (s.dependencies().waits(job)) {
      throw new CommandException(
          Error.Code.BAD_STATE,
          "job " + job.getId() + " waits for its dependencies (qstat -f shows them)");
    }
    Outcome out = new Outcome();
    ClusterState view = s;
    if (job.getState() == JobState.HELD) {
      Event.Builder released =
          Event.newBuilder()
              .setJobReleased(
                  JobReleased.newBuilder()
                      .setJobId(job.getId())
                      .setHolds(Holds.newBuilder().setUser(true).setOther(true).setSystem(true)));
      view = out.event(view, released, ctx.nowMillis());
      job = view.job(job.getId()).orElseThrow();
      if (job.getState() != JobState.QUEUED) {
        throw new CommandException(
            Error.Code.BAD_STATE,
            "job " + job.getId() + " is waiting for its execution time or a dependency");
      }
    }
    if (!QueueAttributes.started(view, job.getQueue())) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          "attempt to start job in non-started queue " + job.getQueue());
    }
    List<NodeCapacity> candidates = candidates(view, job, request.getHostsList(), ctx);
    Job queued = job;
    List<NodeAllocation> placed =
        Placement.place(queued, candidates)
            .orElseThrow(
                () ->
                    new CommandException(
                        Error.Code.RESOURCES_UNAVAILABLE,
                        "job does not fit on "
                            + (request.getHostsCount() > 0
                                ? String.join("+", request.getHostsList())
                                : "any node")
                            + " now: it needs "
                            + needs(queued)));
    Event.Builder dispatched =
        RunJobs.dispatchNow(view, new RunDecision(job.getId(), placed), ctx.nowSeconds())
            .orElseThrow(
                () ->
                    new CommandException(
                        Error.Code.RESOURCES_UNAVAILABLE,
                        "the nodes chosen for it, "
                            + placed.stream()
                                .map(NodeAllocation::getNode)
                                .collect(Collectors.joining("+"))
                            + ", cannot take it now (its GPUs are taken)"));
    return out.event(dispatched).reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /** What the job asks of nodes, as its Resource_List says it. */
  private static String needs(Job job) {
    Map<String, String> values = job.getResources().getValuesMap();
    List<String> parts = new ArrayList<>();
    for (String name : List.of("nodes", "ncpus", "procs", "mem", "gpus")) {
      if (values.containsKey(name)) {
        parts.add(name + "=" + values.get(name));
      }
    }
    return parts.isEmpty() ? "1 CPU" : String.join(", ", parts);
  }

  /**
   * The nodes the job may go on: those named, in their order, or every node; of them only those the
   * reservations leave it (its own reservation's, if its queue is one's; else those no reservation
   * takes before its walltime ends).
   */
  private static List<NodeCapacity> candidates(
      ClusterState s, Job job, List<String> hosts, Context ctx) {
    List<NodeCapacity> all =
        new StateView(s, ctx.nowSeconds())
            .nodes().stream()
                .filter(n -> RunJobs.reservationsAllowOn(s, job, n.name(), ctx.nowSeconds()))
                .toList();
    if (hosts.isEmpty()) {
      return all;
    }
    Map<String, NodeCapacity> byName =
        all.stream().collect(Collectors.toMap(NodeCapacity::name, Function.identity()));
    List<NodeCapacity> named = new ArrayList<>();
    for (String host : hosts) {
      if (s.node(host).isEmpty()) {
        throw new CommandException(
            Error.Code.UNKNOWN_NODE, "Unknown node '" + host + "' in the host list");
      }
      NodeCapacity n =
          Optional.ofNullable(byName.get(host))
              .orElseThrow(
                  () ->
                      new CommandException(
                          Error.Code.RESOURCES_UNAVAILABLE,
                          "a reservation holds node "
                              + host
                              + " before the job's walltime would end"));
      if (!n.usable()) {
        throw new CommandException(
            Error.Code.RESOURCES_UNAVAILABLE,
            "node " + host + " takes no jobs now: it is down, offline or not yet reporting");
      }
      if (named.contains(n)) {
        throw new CommandException(
            Error.Code.BAD_VALUE, "node " + host + " is named twice in the host list");
      }
      named.add(n);
    }
    return named;
  }
}
