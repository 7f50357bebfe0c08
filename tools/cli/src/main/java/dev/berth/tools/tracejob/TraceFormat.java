package dev.berth.tools.tracejob;

import static dev.berth.tools.format.Columns.left;

import dev.berth.core.ControlCharacters;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.tools.format.CTime;
import dev.berth.tools.format.JsonWriter;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;

/**
 * tracejob's output, from the job's events in journal order. Messages repeat job names, reasons and
 * comments, so they are shown with control characters escaped. Text as Torque's tracejob prints it:
 * {@code \nJob: ID\n\n}, then per line {@code %-20s %-5c} and the message, the date {@code
 * MM/DD/YYYY HH:MM:SS.mmm} for server lines ({@code S}) and without milliseconds for accounting
 * records ({@code A}); messages wrap at {@code columns} (0 = never) with 26 blanks of indent.
 */
final class TraceFormat {
  /** Which lines to print and how wide. */
  record Style(boolean serverLines, boolean accountingLines, int columns) {}

  private TraceFormat() {}

  static String text(String jobId, List<Event> events, ZoneId zone, Style style) {
    StringBuilder lines = new StringBuilder();
    TraceJobView view = new TraceJobView();
    for (Event event : events) {
      Job before = view.job();
      view.update(event);
      if (style.serverLines()) {
        String date = CTime.logDateMillis(event.getTime(), zone);
        for (String message : TraceMessages.server(event, before)) {
          line(lines, date, 'S', message, style.columns());
        }
      }
      String record = TraceMessages.accounting(event, view.job());
      if (style.accountingLines() && !record.isEmpty()) {
        line(lines, CTime.logDate(event.getTime(), zone), 'A', record, style.columns());
      }
    }
    return lines.length() == 0 ? "" : "\nJob: " + jobId + "\n\n" + lines;
  }

  /** The events of one job as a member of the open {@code Jobs} object. */
  static void json(JsonWriter json, String jobId, List<Event> events, ZoneId zone) {
    json.beginObject(jobId).beginArray("events");
    TraceJobView view = new TraceJobView();
    for (Event event : events) {
      Job before = view.job();
      view.update(event);
      json.beginObject()
          .field("seq", event.getSeq())
          .field("time", CTime.logDateMillis(event.getTime(), zone))
          .field("epoch_ms", event.getTime())
          .field("actor", event.getActor())
          .field("event", event.getBodyCase().name().toLowerCase(Locale.ROOT))
          .beginArray("messages");
      for (String message : TraceMessages.server(event, before)) {
        json.value(message);
      }
      json.endArray();
      String record = TraceMessages.accounting(event, view.job());
      if (!record.isEmpty()) {
        json.field("accounting", record);
      }
      json.endObject();
    }
    json.endArray().endObject();
  }

  private static void line(
      StringBuilder out, String date, char source, String message, int columns) {
    out.append(left(date, 20)).append(' ').append(left(String.valueOf(source), 5));
    out.append(wrap(ControlCharacters.escape(message), 26, columns));
  }

  /**
   * Torque's {@code line_wrap}: with {@code end} columns, cut the message at a blank before {@code
   * end - start} characters (or, if there is none, at the next blank after), continuation lines
   * indented by {@code start} blanks. {@code end} 0 prints the message as it is.
   */
  static String wrap(String message, int start, int end) {
    if (end == 0) {
      return message + "\n";
    }
    StringBuilder out = new StringBuilder();
    int total = message.length();
    int wrapAt = Math.max(1, end - start);
    int from = 0;
    int startIndex = 0;
    while (startIndex < total) {
      int cut;
      if (startIndex + wrapAt < total) {
        cut = from + wrapAt;
        while (cut > from && (cut >= total || message.charAt(cut) != ' ')) {
          cut--;
        }
        if (cut == from) {
          cut = from + wrapAt;
          while (cut < total && message.charAt(cut) != ' ') {
            cut++;
          }
        }
      } else {
        cut = total;
      }
      if (from > 0) {
        out.append(" ".repeat(start));
      }
      out.append(message, from, cut).append('\n');
      from = cut + 1;
      startIndex = cut;
    }
    return out.toString();
  }
}
