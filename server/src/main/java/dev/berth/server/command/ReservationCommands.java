package dev.berth.server.command;

import dev.berth.core.BadValueException;
import dev.berth.core.Durations;
import dev.berth.core.NodeSpec;
import dev.berth.proto.Ack;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.CreateReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobDeleted;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.NodeAllocation;
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
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Response;
import dev.berth.scheduler.Feasibility;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.scheduler.Placement;
import dev.berth.scheduler.RunningJob;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * pbs_rsub and pbs_rdel, and a reservation's window opening and closing: whole nodes held for a
 * window, with a queue of their own for the jobs that may use them. Only managers and operators
 * make reservations (a site's maintenance or course); the users it names may submit to it.
 */
public final class ReservationCommands {
  /** Live reservations at once: each adds work to every scheduling cycle and dispatch check. */
  static final int MAX_RESERVATIONS = 1000;

  /** The longest window, a year: far enough ahead for any plan, and no overflow of its times. */
  static final long MAX_LENGTH = 366L * 86400;

  /** A start this much in the past is taken as now (the command's own time to get here). */
  static final long START_GRACE = 60;

  private static final int MAX_NAME = 64;
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

  private ReservationCommands() {}

  static Outcome create(ClusterState s, Caller caller, CreateReservation request, Context ctx) {
    Permissions.requireOperator(s, caller, "make reservations");
    long now = ctx.nowSeconds();
    long start = start(request, now);
    long end = end(request, start);
    if (s.reservations().values().stream().filter(ReservationCommands::live).count()
        >= MAX_RESERVATIONS) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "there are already " + MAX_RESERVATIONS + " reservations; delete some first (pbs_rdel)");
    }
    checkName(request.getName());
    List<String> users = users(request, caller);
    List<String> nodes = chooseNodes(s, request.getNodes(), start, end, now);
    long number = s.nextJobNumber();
    while (s.queue("R" + number).isPresent()) {
      number++; // an administrator's own queue of that name keeps it
    }
    String queue = "R" + number;
    Reservation r =
        Reservation.newBuilder()
            .setId(queue + "." + ctx.serverName())
            .setNumber(number)
            .setName(request.getName())
            .setOwner(caller.principal())
            .setQueue(queue)
            .setStart(start)
            .setEnd(end)
            .addAllNodes(nodes)
            .setNodesRequest(request.getNodes().trim())
            .setState(start <= now ? Reservation.State.RUNNING : Reservation.State.CONFIRMED)
            .setCtime(now)
            .build();
    String walltime = Durations.format(end - start);
    Map<String, String> attributes = new TreeMap<>();
    attributes.put(QueueAttributes.QUEUE_TYPE, "Execution");
    attributes.put(QueueAttributes.ENABLED, "True");
    attributes.put(QueueAttributes.STARTED, "True");
    attributes.put(QueueAttributes.ACL_USER_ENABLE, "True");
    attributes.put(QueueAttributes.ACL_USERS, String.join(",", users));
    // a job without a walltime gets the whole window, and none may ask for more than it
    attributes.put(ServerAttributes.RESOURCES_DEFAULT + ".walltime", walltime);
    attributes.put(ServerAttributes.RESOURCES_MAX + ".walltime", walltime);
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
                        ReservationStatus.newBuilder().setReservation(r).addAllUsers(users))
                    .addAllWarnings(stillRunning(s, nodes, start, now))));
  }

  static Outcome delete(ClusterState s, Caller caller, String text) {
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
    end(s, r, "deleted by " + caller.principal(), out);
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }

  /**
   * The housekeeping of reservations: windows that open now begin, windows that closed end, and
   * finished reservations whose queue has no job left go with their queue.
   */
  static void tick(ClusterState s, long now, Outcome out) {
    for (Reservation r : s.reservations().values()) {
      switch (r.getState()) {
        case CONFIRMED, RUNNING -> {
          if (r.getEnd() <= now) {
            end(s, r, "its window ended", out);
          } else if (r.getState() == Reservation.State.CONFIRMED && r.getStart() <= now) {
            out.event(
                Event.newBuilder()
                    .setReservationBegan(ReservationBegan.newBuilder().setId(r.getId())));
          }
        }
        case FINISHED -> {
          if (s.counts(r.getQueue()).total() == 0) {
            out.event(
                Event.newBuilder()
                    .setReservationRemoved(ReservationRemoved.newBuilder().setId(r.getId())));
            ManageCommands.removeQueue(s, r.getQueue(), out);
          }
        }
        default -> {}
      }
    }
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
        .map(q -> AttributeSpec.items(q.getAttributesOrDefault(QueueAttributes.ACL_USERS, "")))
        .orElse(List.of());
  }

  public static boolean live(Reservation r) {
    return r.getState() != Reservation.State.FINISHED;
  }

  /**
   * Ends the reservation: its queue takes and starts no more jobs, its queued jobs are deleted and
   * its running ones killed, each with the reason.
   */
  private static void end(ClusterState s, Reservation r, String why, Outcome out) {
    String reason = "reservation " + r.getId() + " ended: " + why;
    out.event(
        Event.newBuilder()
            .setReservationEnded(ReservationEnded.newBuilder().setId(r.getId()).setReason(why)));
    out.event(
        Event.newBuilder()
            .setQueueAttributesChanged(
                QueueAttributesChanged.newBuilder()
                    .setQueue(r.getQueue())
                    .addChanges(flag(QueueAttributes.ENABLED, false))
                    .addChanges(flag(QueueAttributes.STARTED, false))));
    if (s.counts(r.getQueue()).total() == 0) {
      return;
    }
    for (Job job : s.jobs()) {
      if (!job.getQueue().equals(r.getQueue()) || !job.getArrayRequest().isEmpty()) {
        continue; // an array's parent ends with its subjobs
      }
      switch (job.getState()) {
        case QUEUED, HELD, WAITING ->
            out.event(
                Event.newBuilder()
                    .setJobDeleted(
                        JobDeleted.newBuilder().setJobId(job.getId()).setReason(reason)));
        case RUNNING -> {
          if (job.getDeleteRequestedBy().isEmpty()) {
            out.event(
                Event.newBuilder()
                    .setJobKillRequested(
                        JobKillRequested.newBuilder().setJobId(job.getId()).setReason(reason)));
          }
        }
        default -> {}
      }
    }
  }

  private static AttributeValue flag(String name, boolean value) {
    return AttributeValue.newBuilder().setName(name).setValue(value ? "True" : "False").build();
  }

  private static long start(CreateReservation request, long now) {
    long start = request.getStart() == 0 ? now : request.getStart();
    if (start < now - START_GRACE) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "the reservation would begin " + (now - start) + " s ago; give a start that is ahead");
    }
    return Math.max(start, now);
  }

  private static long end(CreateReservation request, long start) {
    long duration = request.getDuration();
    long end = request.getEnd();
    if (duration < 0) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "the duration " + duration + " s is negative");
    }
    if (end == 0 && duration == 0) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "give the reservation's end (-E) or its duration (-D)");
    }
    if (end != 0 && duration != 0 && end - start != duration) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "the end (-E) is "
              + (end - start)
              + " s after the start but the duration (-D) is "
              + duration
              + " s; give one of them");
    }
    if (end == 0) {
      end = start + Math.min(duration, MAX_LENGTH + 1);
    }
    if (end <= start) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "the reservation would end " + (start - end) + " s before it begins");
    }
    if (end - start > MAX_LENGTH) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "a reservation may last at most " + MAX_LENGTH / 86400 + " days");
    }
    return end;
  }

  private static void checkName(String name) {
    AttributeValues.check("Reserve_Name", name);
    if (name.length() > MAX_NAME) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "the reservation's name may be at most " + MAX_NAME + " characters long");
    }
  }

  private static List<String> users(CreateReservation request, Caller caller) {
    if (request.getUsersCount() == 0) {
      return List.of(caller.user());
    }
    Set<String> users = new LinkedHashSet<>();
    for (String u : request.getUsersList()) {
      if (!USER.matcher(u).matches()) {
        throw new CommandException(
            Error.Code.BAD_VALUE, "-U: '" + AttributeValues.shown(u) + "' is not a user name");
      }
      users.add(u);
    }
    return List.copyOf(users);
  }

  /**
   * Whole nodes for the request, none of them in another reservation whose window meets this one:
   * first those whose jobs end soonest (a node's running jobs must end before the start for the
   * reservation's jobs to have it whole), usable before down or offline ones.
   */
  private static List<String> chooseNodes(
      ClusterState s, String spec, long start, long end, long now) {
    if (spec.isBlank()) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "give the nodes to reserve: -l nodes=COUNT[:ppn=N][:property] or names");
    }
    ResourceRequest.Builder wanted = ResourceRequest.newBuilder();
    try {
      wanted.addAllNodeGroups(NodeSpec.parse(spec).groups());
    } catch (BadValueException e) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "nodes=" + AttributeValues.shown(spec) + ": " + e.getMessage());
    }
    Job asked = Job.newBuilder().setResources(wanted).build();
    Map<String, Long> lastEnd = lastEnds(s, now);
    List<NodeCapacity> all = StateView.capacities(s);
    Map<String, String> taken = takenOver(s, start, end);
    List<NodeCapacity> candidates = new ArrayList<>();
    for (NodeCapacity n : all) {
      if (!taken.containsKey(n.name())) {
        candidates.add(n);
      }
    }
    candidates.sort(
        Comparator.comparing((NodeCapacity n) -> !n.usable())
            .thenComparing(n -> lastEnd.getOrDefault(n.name(), 0L)));
    Optional<List<NodeAllocation>> placed =
        Placement.place(asked, candidates.stream().map(NodeCapacity::empty).toList());
    if (placed.isPresent()) {
      return placed.get().stream().map(NodeAllocation::getNode).distinct().toList();
    }
    Optional<String> never = Feasibility.whyImpossible(asked, all);
    throw new CommandException(
        Error.Code.RESOURCES_UNAVAILABLE,
        "cannot reserve nodes="
            + AttributeValues.shown(spec)
            + ": "
            + never.orElse(
                "the nodes that would do are in other reservations over the window ("
                    + String.join(", ", new TreeSet<>(taken.values()))
                    + ")"));
  }

  /** The nodes of live reservations whose windows meet [start, end), each with one's id. */
  private static Map<String, String> takenOver(ClusterState s, long start, long end) {
    Map<String, String> taken = new HashMap<>();
    for (Reservation r : s.reservations().values()) {
      if (live(r) && r.getStart() < end && start < r.getEnd()) {
        r.getNodesList().forEach(n -> taken.putIfAbsent(n, r.getId()));
      }
    }
    return taken;
  }

  /** For each node, when the last job on it ends at the latest. */
  private static Map<String, Long> lastEnds(ClusterState s, long now) {
    Map<String, Long> result = new TreeMap<>();
    for (Job j : s.holding().values()) {
      long end = runningEnd(j, now);
      for (NodeAllocation a : j.getExecNodesList()) {
        result.merge(a.getNode(), end, Math::max);
      }
    }
    return result;
  }

  private static long runningEnd(Job j, long now) {
    long begun = j.getStartTime() > 0 ? j.getStartTime() : now;
    return RunningJob.endOf(begun, RunningJob.duration(j));
  }

  /** Jobs on the reserved nodes that may still run when the window opens: they are not stopped. */
  private static List<String> stillRunning(
      ClusterState s, List<String> nodes, long start, long now) {
    List<String> warnings = new ArrayList<>();
    Set<String> reserved = Set.copyOf(nodes);
    for (Job j : s.holding().values()) {
      long end = runningEnd(j, now);
      if (end <= start) {
        continue;
      }
      List<String> on =
          j.getExecNodesList().stream()
              .map(NodeAllocation::getNode)
              .filter(reserved::contains)
              .distinct()
              .toList();
      if (!on.isEmpty()) {
        warnings.add(
            "job "
                + j.getId()
                + " on "
                + String.join(", ", on)
                + (end == RunningJob.UNKNOWN_END
                    ? " has no walltime and may still run when the reservation begins"
                    : " may run until " + (end - start) + " s after the reservation begins")
                + "; the reservation's jobs get those CPUs only when it ends");
      }
    }
    return warnings;
  }
}
