package dev.berth.server.command;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.state.ClusterState;

/**
 * Who may do what. Root on a server host is always a manager, as is the user the server runs as
 * there (a personal cluster's owner); root on a submit host is not: it is a manager only where the
 * managers list names it; the server's {@code managers} and {@code operators} lists add others as
 * {@code user@host} ({@link UserAcl}: host may be {@code *}, {@code *.domain}, ...). Users act on
 * their own jobs only; managers and operators on any job. Seeing other users' jobs needs {@code
 * query_other_jobs} (as in Torque, off by default), and even then their environment (Variable_List)
 * and scripts stay with their owners and the operators. A job runs as root only when {@code
 * acl_roots} names the submitter.
 */
public final class Permissions {
  private Permissions() {}

  /**
   * The user this server runs as: root at a site, the user who started it for a personal cluster
   * ({@code berth up} as an ordinary user), who manages it as root manages a site's.
   */
  private static final String SERVER_USER = System.getProperty("user.name");

  public static boolean isManager(ClusterState s, Caller c) {
    return ((c.isRoot() || c.user().equals(SERVER_USER)) && !c.relayed())
        || UserAcl.admits(ServerAttributes.get(s, ServerAttributeNames.MANAGERS), c);
  }

  public static boolean isOperator(ClusterState s, Caller c) {
    return isManager(s, c)
        || UserAcl.admits(ServerAttributes.get(s, ServerAttributeNames.OPERATORS), c);
  }

  public static boolean mayControl(ClusterState s, Caller c, Job job) {
    return job.getEuser().equals(c.user()) || isOperator(s, c);
  }

  public static boolean maySee(ClusterState s, Caller c, Job job) {
    return job.getEuser().equals(c.user()) || maySeeOthersJobs(s, c);
  }

  /**
   * Whether {@code c} may see the job with id {@code jobId} anywhere it is shown (pbsnodes,
   * momctl): as {@link #maySee(ClusterState, Caller, Job)} says of a known job; a job the server
   * does not know (one a mom still reports) only by those who may see every job.
   */
  public static boolean maySee(ClusterState s, Caller c, String jobId) {
    return s.job(jobId).map(j -> maySee(s, c, j)).orElseGet(() -> maySeeOthersJobs(s, c));
  }

  /** Whether {@code c} may see other users' jobs: operators, and everyone with query_other_jobs. */
  public static boolean maySeeOthersJobs(ClusterState s, Caller c) {
    return ServerAttributes.flag(s, ServerAttributeNames.QUERY_OTHER_JOBS) || isOperator(s, c);
  }

  /**
   * Whether {@code c} may see {@code user}'s fair-share usage: its own, or anyone's for operators
   * and when query_other_jobs is on (as for jobs).
   */
  public static boolean maySeeUsage(ClusterState s, Caller c, String user) {
    return user.equals(c.user()) || maySeeAllUsage(s, c);
  }

  /** Whether {@code c} may see every user's and account's usage. */
  public static boolean maySeeAllUsage(ClusterState s, Caller c) {
    return maySeeOthersJobs(s, c);
  }

  /** Whether {@code c} may read a job's environment and script: its owner and operators. */
  public static boolean mayReadPrivate(ClusterState s, Caller c, Job job) {
    return job.getEuser().equals(c.user()) || isOperator(s, c);
  }

  /**
   * A job runs as the user who submitted it (Berth has no User_List, so nothing changes that
   * later); when that is root, {@code acl_roots} must name the submitter, as in Torque and OpenPBS.
   * The mom checks again for uid 0 before it starts anything.
   */
  public static void requireMayRunAs(ClusterState s, Caller c) {
    if (c.isRoot() && !UserAcl.admits(ServerAttributes.get(s, ServerAttributeNames.ACL_ROOTS), c)) {
      throw new CommandException(
          Error.Code.BAD_USER,
          "root user "
              + c.principal()
              + " not allowed: jobs run as root only when the server's acl_roots names the"
              + " submitter (qmgr -c 'set server acl_roots += "
              + c.principal()
              + "'), on moms started as root with --root-jobs");
    }
  }

  public static void requireManager(ClusterState s, Caller c, String what) {
    if (!isManager(s, c)) {
      throw new CommandException(
          Error.Code.PERMISSION,
          c.principal()
              + " may not "
              + what
              + ": only managers may (root or the server's own user on a server host, or the managers"
              + " list)");
    }
  }

  public static void requireOperator(ClusterState s, Caller c, String what) {
    if (!isOperator(s, c)) {
      throw new CommandException(
          Error.Code.PERMISSION,
          c.principal() + " may not " + what + ": only managers and operators may");
    }
  }

  public static void requireControl(ClusterState s, Caller c, Job job, String what) {
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
}
