package dev.berth.tools.format;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * Dates as C's {@code ctime(3)} prints them, which is how qstat -f shows times: {@code Mon Nov 30
 * 10:00:00 2026}, {@code Thu Mar 2 14:21:33 2017} (day of month padded to two places with a blank).
 * Written by hand so that no locale data has to load.
 */
public final class CTime {
  private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  private static final String[] MONTHS = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
  };

  private CTime() {}

  public static String format(long epochSeconds, ZoneId zone) {
    ZonedDateTime t = Instant.ofEpochSecond(epochSeconds).atZone(zone);
    return DAYS[t.getDayOfWeek().getValue() - 1]
        + " "
        + MONTHS[t.getMonthValue() - 1]
        + " "
        + (t.getDayOfMonth() < 10 ? " " : "")
        + t.getDayOfMonth()
        + " "
        + two(t.getHour())
        + ":"
        + two(t.getMinute())
        + ":"
        + two(t.getSecond())
        + " "
        + t.getYear();
  }

  /** {@code MM/DD/YYYY HH:MM:SS}, the date of Torque's log lines. */
  public static String logDate(long epochMillis, ZoneId zone) {
    ZonedDateTime t = Instant.ofEpochMilli(epochMillis).atZone(zone);
    return two(t.getMonthValue())
        + "/"
        + two(t.getDayOfMonth())
        + "/"
        + t.getYear()
        + " "
        + two(t.getHour())
        + ":"
        + two(t.getMinute())
        + ":"
        + two(t.getSecond());
  }

  /** {@code MM/DD/YYYY HH:MM:SS.mmm}, the date of Torque 6's server log lines. */
  public static String logDateMillis(long epochMillis, ZoneId zone) {
    long millis = Math.floorMod(epochMillis, 1000L);
    return logDate(epochMillis, zone)
        + "."
        + (millis < 10 ? "00" : millis < 100 ? "0" : "")
        + millis;
  }

  private static String two(int n) {
    return n < 10 ? "0" + n : Integer.toString(n);
  }
}
