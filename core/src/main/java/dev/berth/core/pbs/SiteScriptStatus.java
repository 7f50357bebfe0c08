package dev.berth.core.pbs;

/**
 * Torque's results of a prologue or epilogue that did not exit by itself, beside its own exit
 * status (0 to 255): what a mom logs and decides by. Only exit status 1 aborts a job; every other
 * failure, these included, requeues it (docs/admin-guide.md, "Prologues and epilogues").
 */
public enum SiteScriptStatus {
  /** The script was refused before it ran (ownership, permissions) or could not be started. */
  REFUSED(-1),
  /** The script ran past its time and was killed with its session. */
  TIMED_OUT(-4);

  private final int code;

  SiteScriptStatus(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }
}
