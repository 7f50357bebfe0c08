package dev.berth.core;

/**
 * Torque's job exit statuses that are not the script's own: its JOB_EXEC codes, which moms report
 * and the server, qstat, tracejob, accounting and mail show as they are (docs/job-states.md). A
 * script's own status is 0 to 255, and 256 + N when a signal N killed it.
 */
public final class ExitStatus {
  /** JOB_EXEC_FAIL1: the job could not be started on its nodes. */
  public static final int EXEC_FAILED = -1;

  /** JOB_EXEC_FAIL2: a prologue aborted the job (its exit status 1). */
  public static final int PROLOGUE_ABORTED = -2;

  /** JOB_EXEC_INITABT: the job was lost with its node, or vanished while its mom was away. */
  public static final int LOST = -4;

  /** JOB_EXEC_OVERLIMIT_MEM: killed for using more memory than its mem or vmem. */
  public static final int OVER_MEMORY = -10;

  /** JOB_EXEC_OVERLIMIT_WT: killed for running past its walltime. */
  public static final int OVER_WALLTIME = -11;

  /** JOB_EXEC_OVERLIMIT_CPUT: killed for using more CPU time than its cput. */
  public static final int OVER_CPUT = -12;

  private ExitStatus() {}
}
