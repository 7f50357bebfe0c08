package dev.berth.server.command.reservation;

import dev.berth.core.Durations;
import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Ack;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.CreateReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueAttributesChanged;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationBegan;
import dev.berth.proto.ReservationCreated;
import dev.berth.proto.ReservationEnded;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationRemoved;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.config.ManageCommands;
import dev.berth.server.command.job.JobControl;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.JobCounts;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * pbs_rsub and pbs_rdel, and a reservation's window opening and closing: whole nodes held for a
 * window, with a queue of their own for the jobs that may use them. Only managers and operators
 * make reservations (a site's maintenance or course); the users it names may submit to it.
 */
public final class ReservationCommands {
  /** Live reservations at once: each adds work to every scheduling cycle and dispatch check. */
  static final int MAX_RESERVATIONS = 1000;

  private ReservationCommands() {}

  public static Outcome create(
      ClusterState s, Caller caller, CreateReservation create, Context ctx) {
    Permissions.requireOperator(s, caller, "make reservations");
    long now = ctx.nowSeconds();
    ReservationRequest request = ReservationRequest.of(create, caller, now);
    if (s.reservations().values().stream().filter(ReservationCommands::live).count()
        >= MAX_RESERVATIONS) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "there are already " + MAX_RESERVATIONS + " reservations; delete some first (pbs_rdel)");
    }
    ReservationNodes chosen = ReservationNodes.choose(s, request, now);
    long number = s.nextJobNumber();
    while (s.queue("R" + number).isPresent()) {
      number++; // an administrator's own queue of that name keeps it
    }
    String queue = "R" + number;
    Reservation r =
        Reservation.newBuilder()
            .setId(queue + "." + ctx.serverName())
            .setNumber(number)
            .setName(request.name())
            .setOwner(caller.principal())
            .setQueue(queue)
            .setStart(request.start())
            .setEnd(request.end())
            .addAllNodes(chosen.nodes())
            .setNodesRequest(request.nodes())
            .setState(
                request.start() <= now ? Reservation.State.RUNNING : Reservation.State.CONFIRMED)
            .setCtime(now)
            .build();
    String walltime = Durations.format(request.end() - request.start());
    Map<String, String> attributes = new TreeMap<>();
    attributes.put(QueueAttributeNames.QUEUE_TYPE, "Execution");
    attributes.put(QueueAttributeNames.ENABLED, "True");
    attributes.put(QueueAttributeNames.STARTED, "True");
    attributes.put(QueueAttributeNames.ACL_USER_ENABLE, "True");
    attributes.put(QueueAttributeNames.ACL_USERS, String.join(",", request.users()));
    // a job without a walltime gets the whole window, and none may ask for more than it
    attributes.put(ServerAttributeNames.RESOURCES_DEFAULT + ".walltime", walltime);
    attributes.put(ServerAttributeNames.RESOURCES_MAX + ".walltime", walltime);
    Outcome out =
        new Outcome()
            .event(
                Event.newBuilder()
                    .setQueueCreated(
                        QueueCreated.newBuilder()
                            .setQueue(
                                Queue.newBuilder().setName(queue).putAllAttributes(attributes))))
            .event(
                Event.newBuilder()
                    .setReservationCreated(ReservationCreated.newBuilder().setReservation(r)));
    return out.reply(
        Response.newBuilder()
            .setReservations(
                ReservationList.newBuilder()
                    .setServer(ctx.serverName())
                    .addReservations(
                        ReservationStatus.newBuilder()
                            .setReservation(r)
                            .addAllUsers(request.users()))
                    .addAllWarnings(chosen.warnings())));
  }

  public static Outcome delete(ClusterState s, Caller caller, String text) {
    Reservation r = find(s, text);
    if (!Permissions.isOperator(s, caller) && !r.getOwner().equals(caller.principal())) {
      throw new CommandException(
          Error.Code.PERMISSION,
          caller.principal()
              + " may not delete reservation "
              + r.getId()
              + ": only its owner, managers and operators may");
    }
    if (r.getState() == Reservation.State.FINISHED) {
      throw new CommandException(
          Error.Code.BAD_STATE,
          "reservation " + r.getId() + " has already finished (" + r.getEndReason() + ")");
    }
    Outcome out = new Outcome();
    Map<String, String> sweep = new HashMap<>();
    end(r, "deleted by " + caller.principal(), out, sweep);
    endJobs(s, sweep, out);
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /**
   * The housekeeping of reservations: windows that open now begin, windows that closed end, and
   * finished reservations go with their queue once it is empty. A job left queued in a finished
   * one's queue (requeued when its node was lost as the window closed) is deleted too.
   */
  public static void tick(ClusterState s, long now, Outcome out) {
    Map<String, String> sweep = new HashMap<>();
    for (Reservation r : s.reservations().values()) {
      switch (r.getState()) {
        case CONFIRMED, RUNNING -> {
          if (r.getEnd() <= now) {
            end(r, "its window ended", out, sweep);
          } else if (r.getState() == Reservation.State.CONFIRMED && r.getStart() <= now) {
            out.event(
                Event.newBuilder()
                    .setReservationBegan(ReservationBegan.newBuilder().setId(r.getId())));
          }
        }
        case FINISHED -> {
          JobCounts jobs = s.counts(r.getQueue());
          if (jobs.total() == 0) {
            out.event(
                Event.newBuilder()
                    .setReservationRemoved(ReservationRemoved.newBuilder().setId(r.getId())));
            ManageCommands.removeQueue(s, r.getQueue(), out);
          } else if (jobs.count(JobState.QUEUED)
                  + jobs.count(JobState.HELD)
                  + jobs.count(JobState.WAITING)
              > 0) {
            sweep.put(r.getQueue(), reason(r, r.getEndReason()));
          }
        }
        default -> {}
      }
    }
    endJobs(s, sweep, out);
  }

  /**
   * The next second at which a live reservation's window opens or closes (it may be past, if the
   * housekeeping has not acted on it yet).
   */
  public static OptionalLong nextBoundary(ClusterState s) {
    long next = Long.MAX_VALUE;
    for (Reservation r : s.reservations().values()) {
      switch (r.getState()) {
        case CONFIRMED -> next = Math.min(next, r.getStart());
        case RUNNING -> next = Math.min(next, r.getEnd());
        default -> {}
      }
    }
    return next == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(next);
  }

  /** A reservation given as R12.server, R12 (its queue's name), or R12 and a server prefix. */
  public static Reservation find(ClusterState s, String text) {
    String t = text.trim();
    Reservation exact = s.reservations().get(t);
    if (exact != null) {
      return exact;
    }
    for (Reservation r : s.reservations().values()) {
      if (r.getQueue().equals(t) || (t.startsWith(r.getQueue() + ".") && r.getId().startsWith(t))) {
        return r;
      }
    }
    throw new CommandException(
        Error.Code.UNKNOWN_RESERVATION, "unknown reservation id " + AttributeValues.shown(t));
  }

  /** Who may submit to the reservation: its queue's acl_users, as they are now. */
  public static List<String> users(ClusterState s, Reservation r) {
    return s.queue(r.getQueue())
        .map(q -> AttributeSpec.items(q.getAttributesOrDefault(QueueAttributeNames.ACL_USERS, "")))
        .orElse(List.of());
  }

  public static boolean live(Reservation r) {
    return r.getState() != Reservation.State.FINISHED;
  }

  /**
   * Ends the reservation: its queue takes and starts no more jobs, and its jobs are to end (in
   * {@code sweep}, by queue, with the reason).
   */
  private static void end(Reservation r, String why, Outcome out, Map<String, String> sweep) {
    out.event(
        Event.newBuilder()
            .setReservationEnded(ReservationEnded.newBuilder().setId(r.getId()).setReason(why)));
    out.event(
        Event.newBuilder()
            .setQueueAttributesChanged(
                QueueAttributesChanged.newBuilder()
                    .setQueue(r.getQueue())
                    .addChanges(flag(QueueAttributeNames.ENABLED, false))
                    .addChanges(flag(QueueAttributeNames.STARTED, false))));
    sweep.put(r.getQueue(), reason(r, why));
  }

  private static String reason(Reservation r, String why) {
    return "reservation " + r.getId() + " ended: " + why;
  }

  /** In one pass over the jobs: those of the queues in {@code sweep} are deleted or killed. */
  private static void endJobs(ClusterState s, Map<String, String> sweep, Outcome out) {
    sweep.keySet().removeIf(q -> s.counts(q).total() == 0);
    if (sweep.isEmpty()) {
      return;
    }
    for (Job job : s.jobs()) {
      String reason = sweep.get(job.getQueue());
      if (reason != null && job.getArrayRequest().isEmpty()) {
        JobControl.end(job, reason, out); // an array's parent ends with its subjobs
      }
    }
  }

  private static AttributeValue flag(String name, boolean value) {
    return AttributeValue.newBuilder().setName(name).setValue(value ? "True" : "False").build();
  }
}
