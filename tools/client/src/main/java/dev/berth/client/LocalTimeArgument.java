package dev.berth.client;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.YearMonth;
import java.time.ZonedDateTime;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A date and time as PBS commands take it, POSIX touch's {@code [[[[CC]YY]MM]DD]hhmm[.SS]} in the
 * clock's zone (qsub {@code -a}, pbs_rsub {@code -R} and {@code -E}), as epoch seconds. Left-out
 * parts are filled in as Torque and OpenPBS do: without a day the time is today, or tomorrow when
 * that has passed; without a month it is this month, or the next; without a year this year, or the
 * next. A two-digit year means 1969-2068, like touch(1).
 */
public final class LocalTimeArgument {
  private static final Pattern FORM =
      Pattern.compile("(\\d{4}|\\d{6}|\\d{8}|\\d{10}|\\d{12})(?:\\.(\\d{2}))?");

  private LocalTimeArgument() {}

  /** The time {@code text} names, the left-out parts taken from {@code clock}'s now and zone. */
  public static long parse(String text, Clock clock) throws BadArgumentException {
    Matcher m = FORM.matcher(text.trim());
    if (!m.matches()) {
      throw new BadArgumentException(
          "expected [[[[CC]YY]MM]DD]hhmm[.SS], e.g. 202309220900 or 0930");
    }
    String digits = m.group(1);
    int seconds = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
    ZonedDateTime now = ZonedDateTime.now(clock);
    try {
      return resolve(digits, seconds, now).toEpochSecond();
    } catch (DateTimeException e) {
      throw new BadArgumentException("no such date or time");
    }
  }

  private static ZonedDateTime resolve(String digits, int seconds, ZonedDateTime now) {
    int n = digits.length();
    LocalTime time = LocalTime.of(field(digits, n - 4), field(digits, n - 2), seconds);
    LocalDate today = now.toLocalDate();
    if (n >= 10) {
      LocalDate date = LocalDate.of(year(digits), field(digits, n - 8), field(digits, n - 6));
      return date.atTime(time).atZone(now.getZone());
    }
    if (n == 8) {
      int month = field(digits, 0);
      int day = field(digits, 2);
      LocalDate date = LocalDate.of(today.getYear(), month, day);
      return later(now, date, () -> LocalDate.of(today.getYear() + 1, month, day), time);
    }
    if (n == 6) {
      int day = field(digits, 0);
      YearMonth month = YearMonth.from(today);
      return later(now, month.atDay(day), () -> month.plusMonths(1).atDay(day), time);
    }
    return later(now, today, () -> today.plusDays(1), time);
  }

  /** {@code date} at {@code time} if that is still ahead, else {@code next} at {@code time}. */
  private static ZonedDateTime later(
      ZonedDateTime now, LocalDate date, Supplier<LocalDate> next, LocalTime time) {
    ZonedDateTime first = date.atTime(time).atZone(now.getZone());
    return first.isAfter(now) ? first : next.get().atTime(time).atZone(now.getZone());
  }

  private static int year(String digits) {
    if (digits.length() == 12) {
      return Integer.parseInt(digits.substring(0, 4));
    }
    int yy = field(digits, 0);
    return yy >= 69 ? 1900 + yy : 2000 + yy;
  }

  private static int field(String digits, int at) {
    return Integer.parseInt(digits.substring(at, at + 2));
  }
}
