package dev.berth.tools.qstat;

import static dev.berth.tools.format.Columns.left;
import static dev.berth.tools.format.Columns.right;

import dev.berth.core.Durations;
import dev.berth.proto.Job;
import dev.berth.tools.format.Columns;

/**
 * qstat's default listing, as Torque 6 prints it ({@code display_statjob}): {@code %-25s %-16s
 * %-15s %8s %1s %-15s} under a two-line header. Long names keep their tail behind {@code ...},
 * owners and queues are cut to 15 characters, and ids longer than 22 characters are cut to 28.
 */
public final class JobTable {
  static final String HEADER =
      "Job ID                    Name             User            Time Use S Queue\n"
          + "------------------------- ---------------- --------------- -------- - -----\n";

  private JobTable() {}

  public static String row(Job job) {
    return left(jobId(job.getId()), 25)
        + " "
        + left(name(job.getName()), 16)
        + " "
        + left(Columns.cut(user(job.getOwner()), 15), 15)
        + " "
        + right(timeUsed(job), 8)
        + " "
        + right(JobAttributeList.stateLetter(job), 1)
        + " "
        + left(Columns.cut(beforeAt(job.getQueue()), 15), 15)
        + "\n";
  }

  /** Ids over 22 characters are cut to 28, as Torque does. */
  static String jobId(String id) {
    return id.length() > 22 ? Columns.cut(id, 28) : id;
  }

  /**
   * A name over 16 characters becomes {@code ...} and its tail, starting at the first {@code /}
   * after the cut point if there is one, at most 16 characters in all.
   */
  static String name(String name) {
    if (name.length() <= 16) {
      return name;
    }
    int cut = name.length() - 16 + 3;
    int slash = name.indexOf('/', cut);
    return Columns.cut("..." + name.substring(slash < 0 ? cut : slash), 16);
  }

  /** CPU time used, HH:MM:SS cut to 8 characters; {@code 0} before the first report. */
  static String timeUsed(Job job) {
    if (!job.hasResourcesUsed()) {
      return "0";
    }
    return Columns.cut(Durations.format(job.getResourcesUsed().getCput()), 8);
  }

  /** The user part of {@code user@host}. */
  static String user(String owner) {
    return beforeAt(owner);
  }

  private static String beforeAt(String value) {
    int at = value.indexOf('@');
    return at < 0 ? value : value.substring(0, at);
  }
}
