package dev.berth.tools.tracejob;

import dev.berth.core.JobDeltas;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;

/**
 * The job as tracejob has seen it so far while reading its events, for the details a line needs
 * that its event does not carry (the queue, the limits, the accounting fields). Display only: the
 * server's state is built by its own apply.
 */
final class TraceJobView {
  private final Job.Builder job = Job.newBuilder();

  Job job() {
    return job.build();
  }

  /** Takes in what {@code event} says about the job; call after describing it. */
  void update(Event event) {
    switch (event.getBodyCase()) {
      case JOB_SUBMITTED -> job.mergeFrom(event.getJobSubmitted().getJob());
      case JOB_RESTORED -> job.clear().mergeFrom(event.getJobRestored().getJob());
      case JOB_ALTERED -> job.clear().mergeFrom(event.getJobAltered().getJob());
      case SUBJOB_ALTERED -> {
        Job altered = JobDeltas.apply(job.build(), event.getSubjobAltered().getChanges());
        job.clear().mergeFrom(altered);
      }
      case JOB_DISPATCHED ->
          job.clearExecNodes()
              .addAllExecNodes(event.getJobDispatched().getExecNodesList())
              .setState(JobState.RUNNING);
      case JOB_STARTED ->
          job.setSessionId(event.getJobStarted().getSessionId())
              .setStartTime(event.getJobStarted().getStartTime());
      case JOB_EXITED ->
          job.setExitStatus(event.getJobExited().getExitStatus())
              .setResourcesUsed(event.getJobExited().getResourcesUsed())
              .setCompTime(event.getJobExited().getEndTime())
              .setState(JobState.COMPLETED);
      case JOB_REQUEUED -> job.clearExecNodes().setState(JobState.QUEUED);
      default -> {
        // the other events change nothing tracejob prints
      }
    }
  }
}
