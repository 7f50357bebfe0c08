package dev.berth.server.command;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Manage;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.Request;
import dev.berth.proto.ServerAttributesChanged;
import dev.berth.proto.ServerInbound;
import dev.berth.scheduler.Preemption;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.config.ManageCommands;
import dev.berth.server.command.job.AlterJobs;
import dev.berth.server.command.job.JobControl;
import dev.berth.server.command.job.QueueMoves;
import dev.berth.server.command.job.Reruns;
import dev.berth.server.command.job.SubmitJobs;
import dev.berth.server.command.node.MomControls;
import dev.berth.server.command.node.NodeHealth;
import dev.berth.server.command.node.NodeReports;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.command.schedule.Preemptions;
import dev.berth.server.command.schedule.RunJobs;
import dev.berth.server.command.schedule.RunNow;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what a command means for the state: the events to record and the answers to send. Reads
 * the state, mutates nothing, and does no I/O; the server's pipeline makes the events durable and
 * applies them.
 *
 * <p>Each domain's commands live in a package of their own, which this class dispatches to: {@code
 * job} (submit, alter, delete, hold, move, rerun), {@code node} (moms' reports, liveness, health,
 * momctl), {@code schedule} (run decisions, qrun, preemption, running limits), {@code reservation}
 * and {@code config} (qmgr: the server's, queues' and nodes' settings). What they share stays here:
 * the caller, the context, the outcome, permissions and the typing of attribute values.
 */
public final class Decider {
  /** Something that may change the state. */
  public sealed interface Command {}

  /** A client request that changes state (queries never come here). */
  public record ClientCommand(Request request, Caller caller) implements Command {}

  /** Run decisions, preemptions and resumptions from a scheduling cycle. */
  public record Schedule(
      List<RunDecision> decisions, List<Preemption> preemptions, List<String> resumptions)
      implements Command {
    public Schedule(List<RunDecision> decisions) {
      this(decisions, List.of(), List.of());
    }
  }

  /** Every node of a suspended job has reported it frozen (the server's Deliveries know). */
  public record SuspendConfirmed(String jobId) implements Command {}

  /** A report from the mom of a node. */
  public record FromNode(ServerInbound message) implements Command {}

  /** A node whose mom stopped answering for longer than node_check_rate. */
  public record NodeDown(String node) implements Command {}

  /** The periodic housekeeping pass. */
  public record Tick() implements Command {}

  /** First start on an empty journal: the default queue and server settings. */
  public record Bootstrap() implements Command {}

  private Decider() {}

  public static Outcome decide(ClusterState s, Command command, Context ctx) {
    if (command instanceof ClientCommand c) {
      return client(s, c.request(), c.caller(), ctx);
    } else if (command instanceof Schedule sc) {
      return schedule(s, sc, ctx);
    } else if (command instanceof FromNode n) {
      return fromNode(s, n.message(), ctx);
    } else if (command instanceof NodeDown d) {
      return Housekeeping.nodeDown(s, d.node(), ctx);
    } else if (command instanceof Tick) {
      return Housekeeping.tick(s, ctx);
    } else if (command instanceof SuspendConfirmed c) {
      Outcome out = new Outcome();
      Preemptions.confirm(s, c.jobId()).ifPresent(out::event);
      return out;
    } else {
      return bootstrap(s);
    }
  }

  /** Events that follow from events just applied (jobs waiting on a job that just ended). */
  public static Outcome cascade(ClusterState after, List<Event> applied) {
    boolean relevant =
        applied.stream()
            .anyMatch(
                e ->
                    switch (e.getBodyCase()) {
                      case JOB_EXITED, JOB_DELETED, JOB_STARTED, JOB_PURGED -> true;
                      default -> false;
                    });
    return relevant ? Housekeeping.dependents(after) : new Outcome();
  }

  /** Whether a request changes state (and so goes through the journal) or only reads it. */
  public static boolean isQuery(Request r) {
    return switch (r.getBodyCase()) {
      case STAT_JOBS,
          STAT_QUEUES,
          STAT_SERVER,
          STAT_NODES,
          TRACE_JOB,
          JOB_HISTORY,
          STAT_FAIR_SHARE,
          STAT_RESERVATIONS ->
          true;
      case MANAGE ->
          r.getManage().getCommand() == Manage.Command.LIST
              || r.getManage().getCommand() == Manage.Command.PRINT;
      default -> false;
    };
  }

  private static Outcome client(ClusterState s, Request r, Caller caller, Context ctx) {
    return switch (r.getBodyCase()) {
      case SUBMIT -> SubmitJobs.submit(s, caller, r.getSubmit(), ctx);
      case DELETE ->
          JobControl.delete(s, caller, r.getDelete().getJobId(), r.getDelete().getPurge(), ctx);
      case HOLD ->
          JobControl.hold(s, caller, r.getHold().getJobId(), r.getHold().getHoldTypes(), ctx);
      case RELEASE ->
          JobControl.release(
              s, caller, r.getRelease().getJobId(), r.getRelease().getHoldTypes(), ctx);
      case ALTER -> AlterJobs.alter(s, caller, r.getAlter(), ctx);
      case SIGNAL ->
          JobControl.signal(s, caller, r.getSignal().getJobId(), r.getSignal().getSignal(), ctx);
      case MANAGE -> ManageCommands.manage(s, caller, r.getManage());
      case RUN_JOB -> RunNow.run(s, caller, r.getRunJob(), ctx);
      case RERUN -> Reruns.rerun(s, caller, r.getRerun(), ctx);
      case MOVE -> QueueMoves.move(s, caller, r.getMove(), ctx);
      case ORDER -> QueueMoves.order(s, caller, r.getOrder(), ctx);
      case CHECKPOINT -> JobControl.checkpoint(s, caller, r.getCheckpoint().getJobId(), ctx);
      case MOM_CONTROL -> MomControls.control(s, caller, r.getMomControl(), ctx);
      case CREATE_RESERVATION ->
          ReservationCommands.create(s, caller, r.getCreateReservation(), ctx);
      case DELETE_RESERVATION ->
          ReservationCommands.delete(s, caller, r.getDeleteReservation().getId());
      default ->
          throw new CommandException(
              Error.Code.UNKNOWN_REQUEST, "request " + r.getBodyCase() + " does not change state");
    };
  }

  private static Outcome schedule(ClusterState s, Schedule schedule, Context ctx) {
    Outcome out = new Outcome();
    ClusterState view = s;
    for (RunDecision d : schedule.decisions()) {
      view = record(out, view, RunJobs.dispatch(view, d, ctx.nowSeconds()));
    }
    for (Preemption p : schedule.preemptions()) {
      view = record(out, view, Preemptions.preempt(view, p));
    }
    for (String suspended : schedule.resumptions()) {
      view = record(out, view, Preemptions.resume(view, suspended));
    }
    return out;
  }

  /** Adds an event that still holds, and the state it leaves for the next decision's check. */
  private static ClusterState record(
      Outcome out, ClusterState view, Optional<Event.Builder> event) {
    if (event.isEmpty()) {
      return view;
    }
    out.event(event.get());
    return StateMachine.apply(view, event.get().setSeq(view.lastSeq() + 1).build());
  }

  private static Outcome fromNode(ClusterState s, ServerInbound m, Context ctx) {
    return switch (m.getBodyCase()) {
      case HELLO -> NodeReports.hello(s, m.getHello(), ctx);
      case STARTED -> NodeReports.started(s, m.getStarted());
      case OBIT -> NodeReports.obit(s, m.getObit(), ctx);
      case RUN_REJECTED -> NodeReports.rejected(s, m.getRunRejected(), ctx);
      case TROUBLE -> NodeReports.trouble(s, m.getTrouble());
      case STATUS -> NodeHealth.verdict(s, m.getStatus());
      default -> new Outcome();
    };
  }

  private static Outcome bootstrap(ClusterState s) {
    Outcome out = new Outcome();
    if (s.lastSeq() != 0) {
      return out;
    }
    out.event(
        Event.newBuilder()
            .setQueueCreated(
                QueueCreated.newBuilder()
                    .setQueue(
                        Queue.newBuilder()
                            .setName("batch")
                            .putAllAttributes(
                                Map.of(
                                    QueueAttributeNames.QUEUE_TYPE, "Execution",
                                    QueueAttributeNames.ENABLED, "True",
                                    QueueAttributeNames.STARTED, "True")))));
    out.event(
        Event.newBuilder()
            .setServerAttributesChanged(
                ServerAttributesChanged.newBuilder()
                    .addChanges(
                        dev.berth.proto.AttributeValue.newBuilder()
                            .setName(ServerAttributeNames.DEFAULT_QUEUE)
                            .setValue("batch"))
                    .addChanges(
                        dev.berth.proto.AttributeValue.newBuilder()
                            .setName(ServerAttributeNames.SCHEDULING)
                            .setValue("True"))));
    return out;
  }
}
