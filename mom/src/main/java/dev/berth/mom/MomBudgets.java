package dev.berth.mom;

import dev.berth.core.Budget;
import dev.berth.core.Sizes;
import dev.berth.mom.terminal.TerminalPort;
import dev.berth.mom.tm.TaskStdin;
import dev.berth.mom.tm.TmLimits;
import java.util.List;

/**
 * What the inputs of a mom may make its JVM hold at their worst (docs/security.md, "Budgets"):
 * those every mom has once, and those all moms of one JVM share ({@code berth up} runs several).
 */
public final class MomBudgets {
  private MomBudgets() {}

  /** The budgets each mom has: its task manager socket and its terminal port. */
  public static List<Budget> perMom() {
    TmLimits tm = TmLimits.DEFAULTS;
    return List.of(
        new Budget(
            "task manager socket (jobs' pbsdsh, pbs_tmrsh, MPI)",
            Sizes.readable(tm.frameBytes())
                + " a request; "
                + Sizes.readable(tm.connectionBytes())
                + " a connection; a job "
                + tm.jobConnections()
                + " connections, "
                + Sizes.readable(tm.jobBytes())
                + " of requests and "
                + Sizes.readable(tm.jobReplyBytes())
                + " of unread answers; a node "
                + tm.nodeConnections()
                + " connections (each "
                + Sizes.readable(TmLimits.CONNECTION_COST)
                + "), "
                + Sizes.readable(tm.nodeBytes())
                + " and "
                + Sizes.readable(tm.nodeReplyBytes()),
            tm.worstCaseHeap(),
            tm.worstCaseThreads() + 2),
        TerminalPort.budget());
  }

  /** The budgets all moms of one JVM share: their tasks' standard input. */
  public static List<Budget> perJvm() {
    return List.of(
        new Budget(
            "tasks' standard input (pbsdsh, MPI ranks)",
            Sizes.readable(TaskStdin.MAX_STDIN_QUEUED)
                + " a task, "
                + Sizes.readable(TaskStdin.MAX_JOB_STDIN_QUEUED)
                + " a job on a node, "
                + Sizes.readable(TaskStdin.MAX_NODE_STDIN_QUEUED)
                + " in all",
            TaskStdin.MAX_NODE_STDIN_QUEUED,
            0));
  }
}
