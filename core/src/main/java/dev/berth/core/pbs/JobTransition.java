package dev.berth.core.pbs;

import static dev.berth.proto.JobState.COMPLETED;
import static dev.berth.proto.JobState.EXITING;
import static dev.berth.proto.JobState.HELD;
import static dev.berth.proto.JobState.QUEUED;
import static dev.berth.proto.JobState.RUNNING;
import static dev.berth.proto.JobState.WAITING;

import dev.berth.proto.JobState;
import java.util.Locale;
import java.util.Set;

/**
 * Torque's job state machine as data: each journal event that changes a job (named as the event's
 * body), the states it may find the job in, and the states it may leave it in. docs/job-states.md
 * shows this table (JobTransitionTest holds the two together); the server's StateMachine refuses an
 * event the table does not allow, before and after applying it.
 *
 * <p>A suspended job (qstat's S) is RUNNING here; what else a suspension asks is the state
 * machine's own check.
 */
public enum JobTransition {
  JOB_SUBMITTED("submit", Set.of(), Set.of(QUEUED, HELD, WAITING)),
  JOB_HELD("hold", Set.of(QUEUED, HELD, WAITING), Set.of(HELD)),
  JOB_RELEASED("release", Set.of(QUEUED, HELD, WAITING), Set.of(QUEUED, HELD, WAITING)),
  /** {@code qalter} of a job that has not started, or the server's comment on a running one. */
  JOB_ALTERED("alter", Set.of(QUEUED, HELD, WAITING, RUNNING), null),
  SUBJOB_ALTERED("alter", Set.of(QUEUED, HELD, WAITING, RUNNING), null),
  JOB_DISPATCHED("dispatch", Set.of(QUEUED), Set.of(RUNNING)),
  JOB_STARTED("start", Set.of(RUNNING), Set.of(RUNNING)),
  JOB_KILL_REQUESTED("kill", Set.of(RUNNING), Set.of(RUNNING)),
  JOB_SUSPENDED("suspend", Set.of(RUNNING), Set.of(RUNNING)),
  JOB_SUSPEND_CONFIRMED("confirm the suspension of", Set.of(RUNNING), Set.of(RUNNING)),
  JOB_RESUMED("resume", Set.of(RUNNING), Set.of(RUNNING)),
  JOB_EXITED("exit", Set.of(RUNNING, EXITING), Set.of(COMPLETED)),
  JOB_REQUEUED("requeue", Set.of(RUNNING, EXITING), Set.of(QUEUED)),
  JOB_DELETED("delete", Set.of(QUEUED, HELD, WAITING), Set.of(COMPLETED)),
  JOB_PURGED("purge", Set.of(COMPLETED), Set.of()),
  /** A snapshot's image of a job, in whatever state it was. */
  JOB_RESTORED("restore", Set.of(), Jobs.STATES),
  SUBJOB_RESTORED("restore", Set.of(), Jobs.STATES);

  private final String verb;
  private final Set<JobState> from;
  private final Set<JobState> to;

  /** {@code to} null: the job stays in the state it was found in. */
  JobTransition(String verb, Set<JobState> from, Set<JobState> to) {
    this.verb = verb;
    this.from = from;
    this.to = to;
  }

  /** The event's name in docs/job-states.md: JOB_HELD is JobHeld. */
  public String event() {
    StringBuilder name = new StringBuilder();
    for (String word : name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
    }
    return name.toString();
  }

  /** What the event does to a job, for a refusal: "cannot hold job 7.srv in state RUNNING". */
  public String verb() {
    return verb;
  }

  /** States the job may be in before; empty for an event that makes the job. */
  public Set<JobState> from() {
    return from;
  }

  /** States the job may be in after, found in {@code before}; empty for one that removes it. */
  public Set<JobState> to(JobState before) {
    return to == null ? Set.of(before) : to;
  }

  /** Whether the job stays in the state it was found in, whatever that was. */
  public boolean keepsState() {
    return to == null;
  }

  /** The six states a job can be in (protobuf's UNSPECIFIED and UNRECOGNIZED are none). */
  private static final class Jobs {
    static final Set<JobState> STATES = Set.of(QUEUED, HELD, WAITING, RUNNING, EXITING, COMPLETED);
  }
}
