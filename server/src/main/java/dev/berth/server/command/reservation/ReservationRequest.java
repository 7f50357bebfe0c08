package dev.berth.server.command.reservation;

import dev.berth.proto.CreateReservation;
import dev.berth.proto.Error;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A pbs_rsub request read and checked before any node is chosen: the window [start, end), who may
 * submit to it, its name and node spec, each bounded so that one request cannot make the state, or
 * a later listing, large.
 */
record ReservationRequest(long start, long end, List<String> users, String name, String nodes) {
  /** The longest window, and the farthest start from now: a year. */
  static final long MAX_LENGTH = 366L * 86400;

  /** A start this much in the past is taken as now (the command's own time to get here). */
  static final long START_GRACE = 60;

  static final int MAX_USERS = 1000;
  private static final int MAX_NAME = 64;
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

  static ReservationRequest of(CreateReservation request, Caller caller, long now) {
    long start = start(request, now);
    long end = end(request, start);
    String name = request.getName();
    AttributeValues.check("Reserve_Name", name);
    if (name.length() > MAX_NAME) {
      throw bad("the reservation's name may be at most " + MAX_NAME + " characters long");
    }
    String nodes = request.getNodes().trim();
    if (nodes.isEmpty()) {
      throw bad("give the nodes to reserve: -l nodes=COUNT[:ppn=N][:property] or names");
    }
    AttributeValues.check("nodes", nodes);
    return new ReservationRequest(start, end, users(request, caller), name, nodes);
  }

  private static long start(CreateReservation request, long now) {
    long start = request.getStart() == 0 ? now : request.getStart();
    if (start < now - START_GRACE) {
      throw bad(
          "the reservation would begin " + (now - start) + " s ago; give a start that is ahead");
    }
    if (start > now + MAX_LENGTH) {
      throw bad("a reservation may begin at most " + MAX_LENGTH / 86400 + " days ahead");
    }
    return Math.max(start, now);
  }

  private static long end(CreateReservation request, long start) {
    long duration = request.getDuration();
    long end = request.getEnd();
    if (duration < 0) {
      throw bad("the duration " + duration + " s is negative");
    }
    if (end == 0 && duration == 0) {
      throw bad("give the reservation's end (-E) or its duration (-D)");
    }
    if (end != 0 && duration != 0 && end - start != duration) {
      throw bad(
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
      throw bad("the reservation would end " + (start - end) + " s before it begins");
    }
    if (end - start > MAX_LENGTH) {
      throw bad("a reservation may last at most " + MAX_LENGTH / 86400 + " days");
    }
    return end;
  }

  private static List<String> users(CreateReservation request, Caller caller) {
    if (request.getUsersCount() == 0) {
      return List.of(caller.user());
    }
    if (request.getUsersCount() > MAX_USERS) {
      throw bad("-U names " + request.getUsersCount() + " users; at most " + MAX_USERS);
    }
    Set<String> users = new LinkedHashSet<>();
    for (String u : request.getUsersList()) {
      if (!USER.matcher(u).matches()) {
        throw bad("-U: '" + AttributeValues.shown(u) + "' is not a user name");
      }
      users.add(u);
    }
    return List.copyOf(users);
  }

  private static CommandException bad(String message) {
    return new CommandException(Error.Code.BAD_VALUE, message);
  }
}
