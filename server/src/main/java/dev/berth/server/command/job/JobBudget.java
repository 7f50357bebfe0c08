package dev.berth.server.command.job;

import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Decider;
import dev.berth.server.command.Permissions;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.JobBytes;

/**
 * The most memory jobs may take in the server's state ({@link JobBytes}): one user's jobs, and the
 * jobs of all users together. These are daemon settings derived from the server's heap (the client
 * limits {@code user_jobs} and {@code jobs}), not qmgr attributes: the state lives in the heap and
 * is rebuilt in it from the journal at every start, so jobs that outgrew the heap would stop the
 * server at every restart, and a limit kept in that same state could not be lowered to mend it.
 *
 * <p>What a command costs is known once its events are applied (an array's subjobs, the values a
 * qalter gives, the jobs a dependency names), so {@link #admit} weighs the state before and after
 * them. Only submissions and alterations are refused: what happens to jobs (their starts, ends and
 * comments) is recorded whatever it costs, and a user at the limit can still delete, hold, release
 * or move jobs. Operators and managers are not held to {@code userBytes}, since they act for users
 * and mend things, but to {@code totalBytes} like everyone: it is what keeps the server up.
 *
 * @param userBytes the most one user's jobs may take
 * @param totalBytes the most all jobs together may take
 */
public record JobBudget(long userBytes, long totalBytes) {
  /**
   * Refuses {@code command} if it is a client's submission or alteration that took its user's jobs
   * past {@code userBytes} or all jobs past {@code totalBytes}: {@code after} is {@code before}
   * with its events applied. A refusal says what the jobs take, what the command adds and the
   * limit.
   */
  public void admit(ClusterState before, ClusterState after, Decider.Command command) {
    if (!(command instanceof Decider.ClientCommand c)) {
      return;
    }
    String what;
    switch (c.request().getBodyCase()) {
      case SUBMIT -> what = "this submission";
      case ALTER -> what = "this qalter";
      default -> {
        return;
      }
    }
    JobBytes was = before.jobBytes();
    JobBytes is = after.jobBytes();
    String user = c.caller().user();
    long userGrowth = is.of(user) - was.of(user);
    if (userGrowth > 0 && is.of(user) > userBytes && !Permissions.isOperator(before, c.caller())) {
      throw refusal(
          "Maximum memory for jobs already taken by user " + user,
          was.of(user),
          what,
          userGrowth,
          "user_jobs",
          userBytes,
          "one user's jobs");
    }
    long growth = is.total() - was.total();
    if (growth > 0 && is.total() > totalBytes) {
      throw refusal(
          "Maximum memory for jobs already taken",
          was.total(),
          what,
          growth,
          "jobs",
          totalBytes,
          "the jobs of all users");
    }
  }

  private static CommandException refusal(
      String head, long taken, String what, long adds, String limit, long max, String whose) {
    return new CommandException(
        Error.Code.MAX_QUEUED,
        head
            + ": "
            + Sizes.readable(taken)
            + ", "
            + what
            + " adds "
            + Sizes.readable(adds)
            + ", "
            + limit
            + " = "
            + Sizes.readable(max)
            + " (the server's memory for "
            + whose
            + ", completed jobs kept for keep_completed included)");
  }
}
