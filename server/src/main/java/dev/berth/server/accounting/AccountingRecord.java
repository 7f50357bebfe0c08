package dev.berth.server.accounting;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * One line of the accounting log, as Torque writes it: when (the server's local time), its type
 * (Torque's letter), the job, and the record's attributes in order.
 *
 * @param millis when the event that made it was decided, epoch milliseconds
 * @param attributes {@code name=value} each
 */
public record AccountingRecord(long millis, char type, String jobId, List<String> attributes) {
  private static final DateTimeFormatter FILE = DateTimeFormatter.ofPattern("yyyyMMdd");
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("MM/dd/yyyy HH:mm:ss");

  public AccountingRecord {
    attributes = List.copyOf(attributes);
  }

  /** The file it goes in: its local date as {@code YYYYMMDD}, Torque's one file a day. */
  public String file(ZoneId zone) {
    return FILE.format(Instant.ofEpochMilli(millis).atZone(zone));
  }

  /** {@code MM/DD/YYYY HH:MM:SS;T;ID;name=value name=value}, with its newline. */
  public String line(ZoneId zone) {
    return STAMP.format(Instant.ofEpochMilli(millis).atZone(zone))
        + ";"
        + type
        + ";"
        + jobId
        + ";"
        + String.join(" ", attributes)
        + "\n";
  }
}
