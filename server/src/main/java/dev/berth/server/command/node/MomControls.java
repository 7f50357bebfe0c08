package dev.berth.server.command.node;

import dev.berth.core.JobIds;
import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.MomControl;
import dev.berth.proto.MomInbound;
import dev.berth.proto.MomOrder;
import dev.berth.proto.Node;
import dev.berth.proto.Response;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;

/**
 * momctl -C, -c and -s: the server passes an operator's word on to a node's mom. -C has it report
 * its status now; -c ends a job the mom still holds that the server does not run there (a sister
 * that missed its job's end, say), or with "all" every such job, the server telling the mom which
 * it runs there; -s stops the mom's process, a manager's call, while its jobs run on under their
 * starters. Nothing is journaled: the state does not change, and a mom that does not hear it is no
 * worse off.
 */
public final class MomControls {
  private MomControls() {}

  public static Outcome control(ClusterState s, Caller caller, MomControl request, Context ctx) {
    Node node =
        s.node(request.getNode())
            .orElseThrow(
                () ->
                    new CommandException(
                        Error.Code.UNKNOWN_NODE, "Unknown node '" + request.getNode() + "'"));
    switch (request.getAction()) {
      case SHUTDOWN -> Permissions.requireManager(s, caller, "stop a mom (momctl -s)");
      case CYCLE, CLEAR_JOB -> Permissions.requireOperator(s, caller, "direct a mom (momctl)");
      default ->
          throw new CommandException(
              Error.Code.INVALID_REQUEST, "no such momctl action: " + request.getAction());
    }
    if (node.getDown() || !node.getRegistered()) {
      throw new CommandException(
          Error.Code.BAD_STATE,
          "node " + node.getName() + " is down: its mom does not report to the server");
    }
    Outcome out = new Outcome();
    switch (request.getAction()) {
      case CYCLE -> out.notice(node.getName(), order(MomOrder.Action.REPORT, caller, List.of()));
      case SHUTDOWN -> {
        if (!node.getStopsRemotely()) {
          throw new CommandException(
              Error.Code.INVALID_REQUEST,
              "the mom of "
                  + node.getName()
                  + " runs inside its server's process (berth serve --nodes): it stops with the"
                  + " server");
        }
        out.notice(node.getName(), order(MomOrder.Action.SHUTDOWN, caller, List.of()));
      }
      default -> {
        if (request.getJobId().equals("all")) {
          out.notice(
              node.getName(), order(MomOrder.Action.CLEAR, caller, runningOn(s, node.getName())));
        } else {
          String id = stale(s, node, request.getJobId(), ctx);
          out.notice(
              node.getName(),
              NodeReports.kill(id, "cleared by " + caller.principal() + " (momctl -c)"));
        }
      }
    }
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /** The job to clear: one the server does not run on the node (one it runs is qdel's). */
  private static String stale(ClusterState s, Node node, String text, Context ctx) {
    String id;
    try {
      id = JobIds.canonical(text, ctx.serverName());
    } catch (dev.berth.core.BadValueException e) {
      throw new CommandException(Error.Code.UNKNOWN_JOB, e.getMessage());
    }
    if (runsOn(s, id, node.getName())) {
      throw new CommandException(
          Error.Code.BAD_STATE,
          "job " + id + " runs on " + node.getName() + ": end it with qdel, not momctl -c");
    }
    return id;
  }

  /** The jobs the server runs on {@code node}. */
  private static List<String> runningOn(ClusterState s, String node) {
    List<String> ids = new ArrayList<>();
    for (Job job : s.jobs()) {
      if (runsOn(job, node)) {
        ids.add(job.getId());
      }
    }
    return ids;
  }

  private static boolean runsOn(ClusterState s, String jobId, String node) {
    return s.job(jobId).filter(j -> runsOn(j, node)).isPresent();
  }

  /** Running or exiting there: an exiting job's processes may still be on the node. */
  private static boolean runsOn(Job job, String node) {
    return (job.getState() == JobState.RUNNING || job.getState() == JobState.EXITING)
        && job.getExecNodesList().stream().anyMatch(a -> a.getNode().equals(node));
  }

  private static MomInbound order(MomOrder.Action action, Caller caller, List<String> keep) {
    return MomInbound.newBuilder()
        .setOrder(
            MomOrder.newBuilder().setAction(action).setBy(caller.principal()).addAllKeep(keep))
        .build();
  }
}
