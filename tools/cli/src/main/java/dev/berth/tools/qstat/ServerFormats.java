package dev.berth.tools.qstat;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.ServerStatus;
import dev.berth.tools.format.Attr;
import dev.berth.tools.format.Columns;
import dev.berth.tools.format.StateCounts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Server status as Torque 6's {@code qstat -B} ({@code display_statserver}) and {@code -B -f}. */
public final class ServerFormats {
  /** Widths of {@code %-16s %5s %5s %5s %5s %5s %5s %5s %5s %5s %-10s}; negative = left. */
  private static final int[] WIDTHS = {-16, 5, 5, 5, 5, 5, 5, 5, 5, 5, -10};

  private ServerFormats() {}

  public static String header() {
    return Columns.line(
            WIDTHS, "Server", "Max", "Tot", "Que", "Run", "Hld", "Wat", "Trn", "Ext", "Com",
            "Status")
        + Columns.line(
            WIDTHS,
            "----------------",
            "---",
            "---",
            "---",
            "---",
            "---",
            "---",
            "---",
            "---",
            "---",
            "----------");
  }

  public static String row(ServerStatus status) {
    Map<String, String> attrs = status.getAttributesMap();
    StateCounts counts = new StateCounts(status.getStateCountMap());
    return Columns.line(
        WIDTHS,
        Columns.cut(status.getName(), 16),
        Columns.cut(attrs.getOrDefault(ServerAttributeNames.MAX_RUNNING, "0"), 5),
        Columns.cut(Integer.toString(status.getTotalJobs()), 5),
        count(counts, "Q"),
        count(counts, "R"),
        count(counts, "H"),
        count(counts, "W"),
        count(counts, "T"),
        count(counts, "E"),
        count(counts, "C"),
        Columns.cut(state(status), 10));
  }

  /**
   * The attributes of {@code -B -f} and JSON: server_state (Active unless the server says
   * otherwise), scheduling, total_jobs, state_count, then the others by name.
   */
  public static List<Attr> attributes(ServerStatus status) {
    Map<String, String> attrs = new TreeMap<>(status.getAttributesMap());
    List<Attr> out = new ArrayList<>();
    attrs.remove(ServerAttributeNames.SERVER_STATE);
    out.add(Attr.text(ServerAttributeNames.SERVER_STATE, state(status)));
    String scheduling = attrs.remove(ServerAttributeNames.SCHEDULING);
    if (scheduling != null) {
      out.add(Attr.text(ServerAttributeNames.SCHEDULING, scheduling));
    }
    out.add(Attr.number(ServerAttributeNames.TOTAL_JOBS, status.getTotalJobs()));
    out.add(
        Attr.text(
            ServerAttributeNames.STATE_COUNT, new StateCounts(status.getStateCountMap()).text()));
    attrs.forEach((name, value) -> out.add(Attr.dotted(name, value)));
    return out;
  }

  private static String state(ServerStatus status) {
    return status.getAttributesMap().getOrDefault(ServerAttributeNames.SERVER_STATE, "Active");
  }

  private static String count(StateCounts counts, String letter) {
    return Columns.cut(Integer.toString(counts.of(letter)), 5);
  }
}
