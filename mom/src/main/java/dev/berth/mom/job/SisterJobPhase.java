package dev.berth.mom.job;

/**
 * The phases of a job on one of its sisters, and which phase may follow which: the second table of
 * docs/mom-job-states.md (MomJobPhaseTest holds the two together).
 */
public enum SisterJobPhase {
  /** JOIN_JOB: the job's account, node files, record, cgroup and task host made (or refused). */
  PREPARING,
  /** The site's parallel prologues, before the join is answered; none without a site directory. */
  PROLOGUE,
  /** Joined: tasks start and end here as the mother superior's task manager asks. */
  JOINED,
  /** KILL_JOB: the tasks here are ended. */
  ENDING_TASKS,
  /** The site's parallel epilogues; none without a site directory. */
  EPILOGUE,
  /** Found in its record after the mom restarted. */
  RECOVERING,
  /** Its cgroup, record and TMPDIR gone, its usage sent: the actor stops. */
  GONE;

  public static final PhaseTable<SisterJobPhase> TABLE =
      PhaseTable.of(SisterJobPhase.class, PREPARING, RECOVERING)
          .step(PREPARING, PROLOGUE, GONE)
          .step(PROLOGUE, JOINED, GONE)
          .step(JOINED, ENDING_TASKS)
          .step(ENDING_TASKS, EPILOGUE)
          .step(EPILOGUE, GONE)
          .step(RECOVERING, JOINED)
          .step(GONE);
}
