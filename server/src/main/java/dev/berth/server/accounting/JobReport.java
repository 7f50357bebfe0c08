package dev.berth.server.accounting;

import dev.berth.core.Durations;
import dev.berth.core.Sizes;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * {@code berth report --jobs}: one line per finished job, as sacct lists them: id, name, user,
 * queue, state, exit status, start, end, elapsed, CPU time, peak memory and nodes; or the same as
 * JSON.
 */
public final class JobReport {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final String ROW = "%-20s %-16s %-12s %-10s %1s %5s %-19s %-19s %9s %9s %10s %s%n";

  private JobReport() {}

  /** A table, times in {@code zone}. */
  public static String text(List<Job> jobs, ZoneId zone) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                ROW,
                "Job ID",
                "Name",
                "User",
                "Queue",
                "S",
                "Exit",
                "Start",
                "End",
                "Elapsed",
                "CPU time",
                "Peak mem",
                "Nodes"));
    for (Job job : jobs) {
      out.append(
          String.format(
              ROW,
              job.getId(),
              cut(job.getName(), 16),
              cut(job.getEuser(), 12),
              cut(job.getQueue(), 10),
              "C",
              job.hasExitStatus() ? Integer.toString(job.getExitStatus()) : "",
              time(job.getStartTime(), zone),
              time(job.getCompTime(), zone),
              Durations.format(elapsed(job)),
              Durations.format(job.getResourcesUsed().getCput()),
              Sizes.formatKb(job.getResourcesUsed().getMem()),
              String.join(",", nodes(job))));
    }
    return out.toString();
  }

  /**
   * {@code {"from":..,"to":..,"jobs":[{"id":..,"name":..,"user":..,"queue":..,"state":"C",
   * "exit_status":..,"start":..,"end":..,"elapsed":..,"cput":..,"mem":..,"nodes":[..]}]}}: times in
   * epoch seconds, durations in seconds, memory in bytes.
   */
  public static String json(List<Job> jobs, String from, String to) {
    StringBuilder out = new StringBuilder();
    out.append("{\"from\":")
        .append(UsageReport.quote(from))
        .append(",\"to\":")
        .append(UsageReport.quote(to))
        .append(",\"jobs\":[");
    for (int i = 0; i < jobs.size(); i++) {
      Job job = jobs.get(i);
      out.append(i == 0 ? "" : ",")
          .append("{\"id\":")
          .append(UsageReport.quote(job.getId()))
          .append(",\"name\":")
          .append(UsageReport.quote(job.getName()))
          .append(",\"user\":")
          .append(UsageReport.quote(job.getEuser()))
          .append(",\"queue\":")
          .append(UsageReport.quote(job.getQueue()))
          .append(",\"state\":\"C\",\"exit_status\":")
          .append(job.hasExitStatus() ? Integer.toString(job.getExitStatus()) : "null")
          .append(",\"start\":")
          .append(job.getStartTime())
          .append(",\"end\":")
          .append(job.getCompTime())
          .append(",\"elapsed\":")
          .append(elapsed(job))
          .append(",\"cput\":")
          .append(job.getResourcesUsed().getCput())
          .append(",\"mem\":")
          .append(job.getResourcesUsed().getMem())
          .append(",\"nodes\":[");
      List<String> nodes = nodes(job);
      for (int n = 0; n < nodes.size(); n++) {
        out.append(n == 0 ? "" : ",").append(UsageReport.quote(nodes.get(n)));
      }
      out.append("]}");
    }
    return out.append("]}\n").toString();
  }

  /** Its walltime as measured, else the span from start to end. */
  private static long elapsed(Job job) {
    long walltime = job.getResourcesUsed().getWalltime();
    return walltime > 0 ? walltime : Math.max(0, job.getCompTime() - job.getStartTime());
  }

  private static List<String> nodes(Job job) {
    return job.getExecNodesList().stream().map(NodeAllocation::getNode).distinct().toList();
  }

  private static String time(long epochSeconds, ZoneId zone) {
    return epochSeconds <= 0 ? "--" : TIME.format(Instant.ofEpochSecond(epochSeconds).atZone(zone));
  }

  /** At most {@code n} characters, a longer text ending in *, as qstat cuts names. */
  private static String cut(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n - 1) + "*";
  }
}
