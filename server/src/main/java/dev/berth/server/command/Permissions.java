package dev.berth.server.command;

import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.server.state.ClusterState;

/**
 * Who may do what. Root is always a manager; the server's {@code managers} and {@code operators}
 * lists add others as {@code user@host} (host may be {@code *}). Users act on their own jobs only;
 * managers and operators on any job. Seeing other users' jobs needs {@code query_other_jobs} (as in
 * Torque, off by default).
 */
public final class Permissions {
  private Permissions() {}

  public static boolean isManager(ClusterState s, Caller c) {
    return c.isRoot() || listed(ServerAttributes.get(s, ServerAttributes.MANAGERS), c);
  }

  public static boolean isOperator(ClusterState s, Caller c) {
    return isManager(s, c) || listed(ServerAttributes.get(s, ServerAttributes.OPERATORS), c);
  }

  public static boolean mayControl(ClusterState s, Caller c, Job job) {
    return job.getEuser().equals(c.user()) || isOperator(s, c);
  }

  public static boolean maySee(ClusterState s, Caller c, Job job) {
    return job.getEuser().equals(c.user())
        || ServerAttributes.flag(s, ServerAttributes.QUERY_OTHER_JOBS)
        || isOperator(s, c);
  }

  static void requireManager(ClusterState s, Caller c, String what) {
    if (!isManager(s, c)) {
      throw new CommandException(
          Error.Code.PERMISSION,
          c.principal() + " may not " + what + ": only managers may (root, or the managers list)");
    }
  }

  static void requireOperator(ClusterState s, Caller c, String what) {
    if (!isOperator(s, c)) {
      throw new CommandException(
          Error.Code.PERMISSION,
          c.principal() + " may not " + what + ": only managers and operators may");
    }
  }

  static void requireControl(ClusterState s, Caller c, Job job, String what) {
    if (!mayControl(s, c, job)) {
      throw new CommandException(
          Error.Code.PERMISSION,
          c.principal()
              + " may not "
              + what
              + " job "
              + job.getId()
              + ": it belongs to "
              + job.getEuser());
    }
  }

  private static boolean listed(String list, Caller c) {
    if (list == null) {
      return false;
    }
    for (String entry : AttributeSpec.items(list)) {
      int at = entry.indexOf('@');
      String user = at < 0 ? entry : entry.substring(0, at);
      String host = at < 0 ? "*" : entry.substring(at + 1);
      boolean hostMatches =
          host.equals("*")
              || host.equals(c.host())
              || (host.startsWith("*.") && c.host().endsWith(host.substring(1)));
      if (user.equals(c.user()) && hostMatches) {
        return true;
      }
    }
    return false;
  }
}
