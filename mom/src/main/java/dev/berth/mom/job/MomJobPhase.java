package dev.berth.mom.job;

/**
 * The phases of a job on its mother superior, and which phase may follow which: the table that
 * docs/mom-job-states.md shows (MomJobPhaseTest holds the two together). The job's actor enters
 * each phase as its behaviour changes ({@link PhaseWalk}).
 */
public enum MomJobPhase {
  /** Its record, account, cgroup, node files, spool and launch made (or refused). */
  PREPARING,
  /** Sisters asked to join, again and again, until all have (or one refuses, or time runs out). */
  JOINING,
  /** The site's prologues, as root and as the owner; none without a site directory. */
  PROLOGUE,
  /** The task manager opened and the starter launched. */
  STARTING,
  /** An interactive job, started but for its shell, waiting for its qsub -I to attach. */
  AWAITING_SESSION,
  /** The script runs: walltime, limits, signals, suspension, qdel, a hung-up terminal. */
  RUNNING,
  /** The script ended: the tasks on this node are ended. */
  ENDING_TASKS,
  /** The starter's status read, what is left killed, usage and the cgroup's figures in the obit. */
  FINISHING,
  /** Every sister told to let the job go, until each confirms and sends its usage. */
  COLLECTING,
  /** The site's epilogues (also after a prologue failed, or a session never attached). */
  EPILOGUE,
  /** The account's TMPDIR goes and the output is delivered. */
  DELIVERING,
  /** The job did not start: its parts here go, and the obit says why. */
  NOT_STARTED,
  /** Found in its record after the mom restarted. */
  RECOVERING,
  /** The obit recorded and sent until the server acknowledges it. */
  ENDED,
  /** Acknowledged: the record is gone and the actor stops. */
  GONE;

  public static final PhaseTable<MomJobPhase> TABLE =
      PhaseTable.of(MomJobPhase.class, PREPARING, RECOVERING)
          .step(PREPARING, JOINING, PROLOGUE, NOT_STARTED)
          .step(JOINING, PROLOGUE, NOT_STARTED)
          .step(PROLOGUE, STARTING, EPILOGUE, NOT_STARTED)
          .step(STARTING, AWAITING_SESSION, RUNNING, NOT_STARTED)
          .step(AWAITING_SESSION, STARTING, EPILOGUE, NOT_STARTED)
          .step(RUNNING, ENDING_TASKS)
          .step(ENDING_TASKS, FINISHING)
          .step(FINISHING, COLLECTING, EPILOGUE)
          .step(COLLECTING, EPILOGUE, ENDED)
          .step(EPILOGUE, DELIVERING, NOT_STARTED)
          .step(DELIVERING, ENDED)
          .step(NOT_STARTED, COLLECTING, ENDED)
          .step(RECOVERING, RUNNING, ENDING_TASKS, NOT_STARTED, ENDED)
          .step(ENDED, GONE);
}
