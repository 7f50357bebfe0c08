package dev.berth.tools.qstat;

import static dev.berth.tools.format.Columns.left;
import static dev.berth.tools.format.Columns.right;

import dev.berth.core.ControlCharacters;
import dev.berth.core.QueueAttributeNames;
import dev.berth.proto.QueueStatus;
import dev.berth.tools.format.Attr;
import dev.berth.tools.format.Columns;
import dev.berth.tools.format.StateCounts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Queue status as Torque 6's qstat prints it: {@code -Q} ({@code display_statque}), {@code -q}
 * ({@code altdsp_statque}) and the attribute list behind {@code -Q -f} and JSON.
 */
public final class QueueFormats {
  /** Widths of {@code %-16s %5s %6s %5s %5s %5s %5s %5s %5s %5s %5s %-1s %5s}; negative = left. */
  private static final int[] WIDTHS = {-16, 5, 6, 5, 5, 5, 5, 5, 5, 5, 5, -1, 5};

  private static final String ALT_BLANK = "--   ";

  private QueueFormats() {}

  /** The two header lines of {@code -Q}. */
  public static String header() {
    return Columns.line(
            WIDTHS, "Queue", "Max", "Tot", "Ena", "Str", "Que", "Run", "Hld", "Wat", "Trn", "Ext",
            "T", "Cpt")
        + Columns.line(
            WIDTHS,
            "----------------",
            "---",
            "----",
            "--",
            "--",
            "---",
            "---",
            "---",
            "---",
            "---",
            "---",
            "-",
            "---");
  }

  /** One {@code -Q} row. */
  public static String row(QueueStatus status) {
    Map<String, String> attrs = status.getQueue().getAttributesMap();
    StateCounts counts = new StateCounts(status.getStateCountMap());
    return Columns.line(
        WIDTHS,
        status.getQueue().getName(),
        Columns.cut(attrs.getOrDefault(QueueAttributeNames.MAX_RUNNING, "0"), 5),
        Columns.cut(Integer.toString(status.getTotalJobs()), 6),
        yesNo(attrs.get(QueueAttributeNames.ENABLED)),
        yesNo(attrs.get(QueueAttributeNames.STARTED)),
        count(counts, "Q"),
        count(counts, "R"),
        count(counts, "H"),
        count(counts, "W"),
        count(counts, "T"),
        count(counts, "E"),
        type(attrs.get(QueueAttributeNames.QUEUE_TYPE)),
        count(counts, "C"));
  }

  /** {@code -q}: the server line, the header, the rows and the run/queued totals. */
  public static String alternate(String server, List<QueueStatus> queues, SizeUnit sizes) {
    StringBuilder out = new StringBuilder();
    out.append("\nserver: ").append(ControlCharacters.escape(server)).append("\n\n");
    out.append("Queue            Memory CPU Time Walltime Node  Run Que Lm  State\n");
    out.append("---------------- ------ -------- -------- ----  --- --- --  -----\n");
    int totalRun = 0;
    int totalQueued = 0;
    for (QueueStatus status : queues) {
      Map<String, String> attrs = status.getQueue().getAttributesMap();
      StateCounts counts = new StateCounts(status.getStateCountMap());
      int run = counts.of("R");
      int queued = counts.of("Q") + counts.of("H") + counts.of("W");
      totalRun += run;
      totalQueued += queued;
      out.append(left(status.getQueue().getName(), 16, 16))
          .append(' ')
          .append(right(memory(attrs.get(QueueAttributeNames.RESOURCES_MAX + ".mem"), sizes), 6, 6))
          .append(' ')
          .append(
              right(
                  attrs.getOrDefault(QueueAttributeNames.RESOURCES_MAX + ".cput", ALT_BLANK), 8, 8))
          .append(' ')
          .append(
              right(
                  attrs.getOrDefault(QueueAttributeNames.RESOURCES_MAX + ".walltime", ALT_BLANK),
                  8,
                  8))
          .append(' ')
          .append(
              right(attrs.getOrDefault(QueueAttributeNames.RESOURCES_MAX + ".nodect", "-- "), 5, 5))
          .append(' ')
          .append(right(Integer.toString(run), 3))
          .append(' ')
          .append(right(Integer.toString(queued), 3))
          .append(' ')
          .append(right(attrs.getOrDefault(QueueAttributeNames.MAX_RUNNING, ALT_BLANK), 2, 2))
          .append("   ")
          .append(isTrue(attrs.get(QueueAttributeNames.ENABLED)) ? 'E' : 'D')
          .append(' ')
          .append(isTrue(attrs.get(QueueAttributeNames.STARTED)) ? 'R' : 'S')
          .append('\n');
    }
    out.append(" ".repeat(47)).append("----- -----\n");
    out.append(" ".repeat(47))
        .append(right(Integer.toString(totalRun), 5))
        .append(' ')
        .append(right(Integer.toString(totalQueued), 5))
        .append('\n');
    return out.toString();
  }

  /**
   * The attributes of {@code -Q -f} and JSON: queue_type, total_jobs, state_count, the others by
   * name, then enabled and started, as Torque lists them.
   */
  public static List<Attr> attributes(QueueStatus status) {
    Map<String, String> attrs = new TreeMap<>(status.getQueue().getAttributesMap());
    List<Attr> out = new ArrayList<>();
    String type = attrs.remove(QueueAttributeNames.QUEUE_TYPE);
    if (type != null) {
      out.add(Attr.text(QueueAttributeNames.QUEUE_TYPE, type));
    }
    out.add(Attr.number(QueueAttributeNames.TOTAL_JOBS, status.getTotalJobs()));
    out.add(
        Attr.text(
            QueueAttributeNames.STATE_COUNT, new StateCounts(status.getStateCountMap()).text()));
    String enabled = attrs.remove(QueueAttributeNames.ENABLED);
    String started = attrs.remove(QueueAttributeNames.STARTED);
    attrs.forEach((name, value) -> out.add(Attr.dotted(name, value)));
    if (enabled != null) {
      out.add(Attr.text(QueueAttributeNames.ENABLED, enabled));
    }
    if (started != null) {
      out.add(Attr.text(QueueAttributeNames.STARTED, started));
    }
    return out;
  }

  private static String memory(String value, SizeUnit sizes) {
    return value == null ? "--  " : sizes.convert(value);
  }

  private static String count(StateCounts counts, String letter) {
    return Columns.cut(Integer.toString(counts.of(letter)), 5);
  }

  private static String yesNo(String value) {
    return isTrue(value) ? "yes" : "no";
  }

  /** Torque's istrue: {@code TRUE} in any case, or {@code 1}. */
  static boolean isTrue(String value) {
    return value != null && (value.equalsIgnoreCase("true") || value.equals("1"));
  }

  /** The first letter of queue_type (E or R), or Torque's "not defined". */
  private static String type(String queueType) {
    if (queueType == null || queueType.isEmpty()) {
      return "not defined";
    }
    return queueType.substring(0, 1).toUpperCase(Locale.ROOT);
  }
}
