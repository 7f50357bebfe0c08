package dev.berth.tools.qstat;

import static dev.berth.tools.format.Columns.left;
import static dev.berth.tools.format.Columns.right;

import dev.berth.core.ControlCharacters;
import dev.berth.core.CpuRanges;
import dev.berth.core.Durations;
import dev.berth.core.Suspensions;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeGroup;
import dev.berth.tools.format.AttrText;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * qstat's alternate listing ({@code -a}, and whenever {@code -n -s -u -i -r -G -M} are given), as
 * Torque 6's {@code altdsp_statjob} prints it: a block naming the server, then one row per job of
 * {@code %-23.22s %-11.11s %-8.8s %-16.16s %6.6s %5.5s %6.6s %9.9s %9.9s %1.1s %9.9s}, with {@code
 * " -- "} for what is not known. {@code -n} adds the exec_host under the row (on the same line with
 * {@code -1}), {@code -s} the comment. {@code -T} (OpenPBS's) shows in the last column a queued
 * job's estimated start, as OpenPBS abbreviates it: {@code HH:MM} within a day, {@code Ddd HH}
 * within a week, the month within a year, else the year; {@code " -- "} when the scheduler holds
 * none.
 */
public final class AltJobTable {
  private static final String BLANK = " -- ";
  private static final long DAY = 24 * 3600;
  private static final String HEADER = columnHeader("Elap", "Time");
  private static final String ESTIMATED_HEADER = columnHeader(" Est", "Start");

  private static String columnHeader(String last1, String last2) {
    return " ".repeat(82)
        + "Req'd       Req'd       "
        + last1
        + "\n"
        + "Job ID                  Username    Queue    Jobname          SessID  NDS   TSK   Memory"
        + "      Time    S   "
        + last2
        + "\n"
        + "----------------------- ----------- -------- ---------------- ------ ----- ------"
        + " --------- --------- - ---------\n";
  }

  /** What the alternate rows show besides the columns. */
  public record Style(
      boolean nodes, boolean oneLine, boolean comment, boolean estimatedStart, SizeUnit sizes) {}

  private AltJobTable() {}

  /** {@code \nserver: comment\n} and the three header lines. */
  public static String header(String server, String comment, Style style) {
    return "\n"
        + ControlCharacters.escape(server)
        + ": "
        + ControlCharacters.escape(comment)
        + "\n"
        + (style.estimatedStart() ? ESTIMATED_HEADER : HEADER);
  }

  public static String row(Job job, Style style, long now, ZoneId zone) {
    Map<String, String> requested = job.getResources().getValuesMap();
    boolean usesCput = requested.containsKey("cput");
    String state = JobAttributeList.stateLetter(job);
    StringBuilder out = new StringBuilder();
    out.append(left(job.getId(), 23, 22))
        .append(' ')
        .append(left(JobTable.user(job.getOwner()), 11, 11))
        .append(' ')
        .append(left(job.getQueue(), 8, 8))
        .append(' ')
        .append(left(job.getName(), 16, 16))
        .append(' ')
        .append(right(job.getSessionId() > 0 ? Long.toString(job.getSessionId()) : BLANK, 6, 6))
        .append(' ')
        .append(right(nodeCount(job), 5, 5))
        .append(' ')
        .append(right(tasks(job), 6, 6))
        .append(' ')
        .append(right(memory(requested, style.sizes()), 9, 9))
        .append(' ')
        .append(right(requested.getOrDefault(usesCput ? "cput" : "walltime", BLANK), 9, 9))
        .append(' ')
        .append(right(state, 1, 1))
        .append(' ')
        .append(right(lastColumn(job, style, state, now, zone, usesCput), 9, 9));
    if (!style.oneLine()) {
      out.append('\n');
    }
    if (style.nodes()) {
      out.append(nodeLines(execHost(job), style.oneLine() ? AttrText.NO_FOLD : AttrText.LINESIZE));
    }
    if (style.comment()) {
      String comment = job.getComment().isEmpty() ? BLANK : job.getComment();
      out.append("   ").append(ControlCharacters.escape(comment)).append('\n');
    }
    return out.toString();
  }

  private static String lastColumn(
      Job job, Style style, String state, long now, ZoneId zone, boolean usesCput) {
    if (style.estimatedStart()) {
      return job.getEstimatedStartTime() > 0
          ? estimated(job.getEstimatedStartTime(), now, zone)
          : BLANK;
    }
    return usesCput ? cputUsed(job) : elapsed(job, state, now);
  }

  /** OpenPBS's short form of an estimated start, by how far off it is. */
  static String estimated(long start, long now, ZoneId zone) {
    ZonedDateTime at = Instant.ofEpochSecond(start).atZone(zone);
    long ahead = start - now;
    String pattern =
        ahead < DAY ? "HH:mm" : ahead < 7 * DAY ? "EEE HH" : ahead < 365 * DAY ? "MMM" : "yyyy";
    return DateTimeFormatter.ofPattern(pattern, Locale.ROOT).format(at);
  }

  /**
   * Torque's {@code prt_nodes}: the exec_host after three blanks, broken before a {@code +} when a
   * line would reach {@code linesize}; a host's domain (from its first {@code .} to the next {@code
   * +}) is left out.
   */
  static String nodeLines(String rawExecHost, int linesize) {
    String execHost = ControlCharacters.escape(rawExecHost);
    StringBuilder out = new StringBuilder();
    StringBuilder line = new StringBuilder();
    int from = 0;
    while (from < execHost.length()) {
      int stop = from;
      while (stop < execHost.length()
          && (stop == from || execHost.charAt(stop) != '+')
          && execHost.charAt(stop) != '.') {
        stop++;
      }
      String piece = execHost.substring(from, stop);
      if (line.length() + piece.length() >= linesize) {
        out.append("   ").append(line).append('\n');
        line.setLength(0);
      }
      line.append(piece);
      if (stop < execHost.length() && execHost.charAt(stop) == '.') {
        int plus = execHost.indexOf('+', stop);
        stop = plus < 0 ? execHost.length() : plus;
      }
      from = stop;
    }
    if (line.length() > 0) {
      out.append("   ").append(line).append('\n');
    }
    return out.toString();
  }

  private static String execHost(Job job) {
    return job.getExecNodesCount() == 0 ? BLANK : CpuRanges.execHost(job.getExecNodesList());
  }

  /** NDS: Resource_List.nodect, else the node count of the nodes= request. */
  private static String nodeCount(Job job) {
    String nodect = job.getResources().getValuesMap().get("nodect");
    if (nodect != null) {
      return nodect;
    }
    int count = 0;
    for (NodeGroup group : job.getResources().getNodeGroupsList()) {
      count += Math.max(1, group.getCount());
    }
    return count > 0 ? Integer.toString(count) : BLANK;
  }

  /** TSK: size, else nodes (count times ppn), else ncpus, else procs, as Torque picks them. */
  private static String tasks(Job job) {
    Map<String, String> requested = job.getResources().getValuesMap();
    String size = requested.get("size");
    if (size != null && !size.equals("0")) {
      return size;
    }
    long tasks = 0;
    for (NodeGroup group : job.getResources().getNodeGroupsList()) {
      tasks += (long) Math.max(1, group.getCount()) * Math.max(1, group.getPpn());
    }
    if (tasks > 0) {
      return Long.toString(tasks);
    }
    for (String name : new String[] {"ncpus", "procs"}) {
      String value = requested.get(name);
      if (value != null && !value.equals("0")) {
        return value;
      }
    }
    return BLANK;
  }

  /** Memory: the last of dmem, mem, pmem, pvmem, vmem the job asked for. */
  private static String memory(Map<String, String> requested, SizeUnit sizes) {
    String memory = BLANK;
    for (String name : new String[] {"dmem", "mem", "pmem", "pvmem", "vmem"}) {
      String value = requested.get(name);
      if (value != null) {
        memory = sizes.convert(value);
      }
    }
    return memory;
  }

  private static String cputUsed(Job job) {
    return job.hasResourcesUsed() ? Durations.format(job.getResourcesUsed().getCput()) : BLANK;
  }

  /** Elapsed walltime, blank for jobs that are queued, held or completed (as in Torque). */
  private static String elapsed(Job job, String state, long now) {
    if (state.equals("Q") || state.equals("C") || state.equals("H")) {
      return BLANK;
    }
    long elapsed = 0;
    if (job.hasResourcesUsed() && job.getResourcesUsed().getWalltime() > 0) {
      elapsed = job.getResourcesUsed().getWalltime();
    }
    if (job.getState() == JobState.RUNNING && job.getStartTime() > 0) {
      elapsed = Math.max(elapsed, Suspensions.ranSeconds(job, now));
    }
    return Durations.format(elapsed);
  }
}
