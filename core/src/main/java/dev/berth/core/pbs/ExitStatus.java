package dev.berth.core.pbs;

import java.util.Arrays;
import java.util.Optional;

/**
 * Torque's job exit statuses that are not the script's own: its JOB_EXEC codes, which moms report
 * and the server, qstat, tracejob, accounting and mail show as they are. docs/job-states.md lists
 * them (ExitStatusTest holds the two together). A script's own status is 0 to 255, and 256 + N when
 * a signal N killed it.
 */
public enum ExitStatus {
  /** The job could not be started on its nodes. */
  EXEC_FAILED(-1, "JOB_EXEC_FAIL1"),
  /** A prologue aborted the job (its exit status 1). */
  PROLOGUE_ABORTED(-2, "JOB_EXEC_FAIL2"),
  /** The job was lost with its node, or vanished while its mom was away. */
  LOST(-4, "JOB_EXEC_INITABT"),
  /** Killed for using more memory than its mem or vmem. */
  OVER_MEMORY(-10, "JOB_EXEC_OVERLIMIT_MEM"),
  /** Killed for running past its walltime. */
  OVER_WALLTIME(-11, "JOB_EXEC_OVERLIMIT_WT"),
  /** Killed for using more CPU time than its cput. */
  OVER_CPUT(-12, "JOB_EXEC_OVERLIMIT_CPUT");

  /** A script killed by signal N ends with this plus N. */
  public static final int SIGNALLED = 256;

  private final int code;
  private final String torqueName;

  ExitStatus(int code, String torqueName) {
    this.code = code;
    this.torqueName = torqueName;
  }

  /** The number the job's exit_status holds. */
  public int code() {
    return code;
  }

  /** Torque's name for it (pbs_job.h). */
  public String torqueName() {
    return torqueName;
  }

  /** The special status {@code code} is, if it is one. */
  public static Optional<ExitStatus> of(int code) {
    return Arrays.stream(values()).filter(s -> s.code == code).findFirst();
  }

  /** The exit status of a script that signal {@code signal} killed. */
  public static int killedBy(int signal) {
    return SIGNALLED + signal;
  }
}
