package dev.berth.server.query;

import dev.berth.proto.Event;
import dev.berth.proto.Job;

/**
 * What of a job its owner may read but other users may not, even where {@code query_other_jobs}
 * lets them see the job: its environment (Variable_List, which often holds tokens and paths) and
 * its submit_args (qsub's command line, which repeats every {@code -v NAME=value}). The owner and
 * managers and operators read them; for everyone else they are left out of every reply. The job
 * script is left out of every reply for everyone: no command needs it back, and it may be large.
 */
final class PrivateParts {
  private PrivateParts() {}

  /** The job as a reader sees it: without its environment unless {@code mayRead}. */
  static Job job(Job job, boolean mayRead) {
    if (mayRead || (job.getVariablesCount() == 0 && job.getSubmitArgs().isEmpty())) {
      return job;
    }
    return job.toBuilder().clearVariables().clearSubmitArgs().build();
  }

  /** A journal event as a reader sees it: no script, and its job as {@link #job} shows it. */
  static Event event(Event event, boolean mayRead) {
    Event.Builder e = event.toBuilder();
    switch (event.getBodyCase()) {
      case JOB_SUBMITTED -> {
        var body = e.getJobSubmittedBuilder().clearScript();
        body.setJob(job(body.getJob(), mayRead));
      }
      case JOB_RESTORED -> {
        var body = e.getJobRestoredBuilder().clearScript();
        body.setJob(job(body.getJob(), mayRead));
      }
      case JOB_ALTERED -> {
        var body = e.getJobAlteredBuilder();
        body.setJob(job(body.getJob(), mayRead));
      }
      case SUBJOB_ALTERED -> {
        var changes = e.getSubjobAlteredBuilder().getChangesBuilder();
        changes.setSet(job(changes.getSet(), mayRead));
      }
      default -> {
        return event;
      }
    }
    return e.build();
  }
}
