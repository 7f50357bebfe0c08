package dev.berth.mom.job;

import org.slf4j.Logger;

/**
 * One job's walk through a {@link PhaseTable}: its actor enters each phase as its behaviour
 * changes. A step the table does not have is a defect of the actor: logged as an error, and an
 * assertion error where assertions are on (the tests). The daemon goes on either way.
 */
public final class PhaseWalk<P extends Enum<P>> {
  /** What the log says of a step the table does not have (the integration tests look for it). */
  public static final String OFF_TABLE = "is not a step of docs/mom-job-states.md";

  private final PhaseTable<P> table;
  private final String jobId;
  private final Logger log;
  private P phase;

  public PhaseWalk(PhaseTable<P> table, String jobId, Logger log) {
    this.table = table;
    this.jobId = jobId;
    this.log = log;
  }

  public void enter(P next) {
    if (!table.allows(phase, next)) {
      String step = (phase == null ? "start" : phase) + " -> " + next;
      log.error("job {}: {} {}", jobId, step, OFF_TABLE);
      assert false : "job " + jobId + ": " + step + " is not a step of its phase table";
    }
    log.debug("job {}: {} -> {}", jobId, phase, next);
    phase = next;
  }
}
