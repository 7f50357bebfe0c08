package dev.berth.tools.resv;

import static dev.berth.tools.format.Columns.left;
import static dev.berth.tools.format.Columns.right;

import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationStatus;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * pbs_rstat's default table (-S) in OpenPBS's layout: id, queue, authorized users and state cut to
 * their columns, then start, duration in seconds and end in OpenPBS's short date form. Unlike
 * OpenPBS, a date is never cut: one in another year takes 21 columns, which OpenPBS cuts to 17.
 */
final class ResvTable {
  private ResvTable() {}

  /** The header and a row per reservation; nothing at all when there are none, as OpenPBS. */
  static String text(List<ReservationStatus> reservations, long now, ZoneId zone) {
    if (reservations.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    out.append(line("Resv ID", "Queue", "User", "State", "Start", "Duration", "End"));
    out.append("-".repeat(69)).append('\n');
    for (ReservationStatus status : reservations) {
      Reservation r = status.getReservation();
      out.append(
          line(
              r.getId(),
              r.getQueue(),
              String.join(",", status.getUsersList()),
              shortState(r.getState()),
              when(r.getStart(), now, zone),
              Long.toString(r.getEnd() - r.getStart()),
              when(r.getEnd(), now, zone)));
    }
    return out.toString();
  }

  private static String line(
      String id,
      String queue,
      String users,
      String state,
      String start,
      String duration,
      String end) {
    return left(id, 10, 10)
        + ' '
        + left(queue, 8, 8)
        + ' '
        + left(users, 8, 8)
        + ' '
        + left(state, 5, 5)
        + ' '
        + right(start, 17)
        + " / "
        + duration
        + " / "
        + left(end, 17)
        + '\n';
  }

  /** OpenPBS's two-letter states. */
  static String shortState(Reservation.State state) {
    return switch (state) {
      case CONFIRMED -> "CO";
      case RUNNING -> "RN";
      case FINISHED -> "FN";
      default -> "--";
    };
  }

  /**
   * OpenPBS's convert_time: {@code Today 15:30} today, {@code Thu 15:30} in this week (Sunday to
   * Saturday), {@code Thu Mar 24 15:30} in this year, {@code Thu Mar 24 2027 15:30} otherwise.
   */
  static String when(long epochSeconds, long now, ZoneId zone) {
    ZonedDateTime at = Instant.ofEpochSecond(epochSeconds).atZone(zone);
    LocalDate today = Instant.ofEpochSecond(now).atZone(zone).toLocalDate();
    LocalDate day = at.toLocalDate();
    LocalDate sunday = today.minusDays(today.getDayOfWeek().getValue() % DayOfWeek.values().length);
    String pattern;
    if (day.getYear() != today.getYear()) {
      pattern = "EEE MMM dd yyyy HH:mm";
    } else if (day.equals(today)) {
      pattern = "'Today' HH:mm";
    } else if (!day.isBefore(sunday) && day.isBefore(sunday.plusWeeks(1))) {
      pattern = "EEE HH:mm";
    } else {
      pattern = "EEE MMM dd HH:mm";
    }
    return DateTimeFormatter.ofPattern(pattern, Locale.ROOT).format(at);
  }
}
