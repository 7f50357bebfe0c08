package dev.berth.server.journal;

import dev.berth.proto.Event;
import java.util.Optional;

/** The job an event is about: for the per-job history index (tracejob), and for job mail. */
public final class EventJobs {
  private EventJobs() {}

  public static Optional<String> jobId(Event e) {
    String id =
        switch (e.getBodyCase()) {
          case JOB_SUBMITTED -> e.getJobSubmitted().getJob().getId();
          case JOB_HELD -> e.getJobHeld().getJobId();
          case JOB_RELEASED -> e.getJobReleased().getJobId();
          case JOB_ALTERED -> e.getJobAltered().getJob().getId();
          case SUBJOB_ALTERED -> e.getSubjobAltered().getJobId();
          case JOB_DISPATCHED -> e.getJobDispatched().getJobId();
          case JOB_STARTED -> e.getJobStarted().getJobId();
          case JOB_EXITED -> e.getJobExited().getJobId();
          case JOB_DELETED -> e.getJobDeleted().getJobId();
          case JOB_KILL_REQUESTED -> e.getJobKillRequested().getJobId();
          case JOB_REQUEUED -> e.getJobRequeued().getJobId();
          case JOB_SUSPENDED -> e.getJobSuspended().getJobId();
          case JOB_SUSPEND_CONFIRMED -> e.getJobSuspendConfirmed().getJobId();
          case JOB_RESUMED -> e.getJobResumed().getJobId();
          case JOB_PURGED -> e.getJobPurged().getJobId();
          default -> null;
        };
    return Optional.ofNullable(id);
  }
}
