package dev.berth.tools.slurm;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Times and durations as Slurm 22.05's commands print them. */
public final class SlurmTimes {
  private static final DateTimeFormatter DATE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

  private static final DateTimeFormatter BANNER =
      DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss uuuu", Locale.ROOT);

  private SlurmTimes() {}

  /** A moment ({@code 2026-12-07T09:00:00}), or {@code none} for 0. */
  public static String date(long epochSeconds, ZoneId zone, String none) {
    return epochSeconds == 0 ? none : DATE.format(Instant.ofEpochSecond(epochSeconds).atZone(zone));
  }

  /** The date line {@code -l} prints first ({@code Sun Dec 06 06:51:45 2026}). */
  public static String banner(long epochSeconds, ZoneId zone) {
    return BANNER.format(Instant.ofEpochSecond(epochSeconds).atZone(zone));
  }

  /** squeue's {@code _print_secs}: M:SS, H:MM:SS or D-HH:MM:SS. */
  public static String secs(long time) {
    if (time < 0 || time > 365L * 86_400) {
      return "INVALID";
    }
    long s = time % 60;
    long m = time / 60 % 60;
    long h = time / 3600 % 24;
    long d = time / 86_400;
    if (d > 0) {
      return String.format(Locale.ROOT, "%d-%02d:%02d:%02d", d, h, m, s);
    }
    if (h > 0) {
      return String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s);
    }
    return String.format(Locale.ROOT, "%d:%02d", m, s);
  }

  /** secs2time_str, as sacct and sinfo print durations: HH:MM:SS, or D-HH:MM:SS. */
  public static String clock(long secs) {
    long s = secs % 60;
    long m = secs / 60 % 60;
    long h = secs / 3600 % 24;
    long d = secs / 86_400;
    return d > 0
        ? String.format(Locale.ROOT, "%d-%02d:%02d:%02d", d, h, m, s)
        : String.format(Locale.ROOT, "%02d:%02d:%02d", h, m, s);
  }
}
