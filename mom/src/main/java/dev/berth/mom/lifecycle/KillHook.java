package dev.berth.mom.lifecycle;

import dev.berth.core.Signals;
import dev.berth.mom.nodejob.Suspender;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Launcher;
import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * The job's end by a kill (qdel, the walltime, a job-wide limit, a hung-up terminal, a lost node)
 * and the server's other signals (qsig): the first kill's reason is the one the job ends with; its
 * session is thawed first, so that it sees the SIGTERM, and gets SIGKILL when the kill delay has
 * passed. A suspended job gets no SIGCONT from qsig, which would undo its SIGSTOP. A job that ends
 * before its script ran ends with that reason instead.
 */
final class KillHook {
  private static final int SIGCONT = Signals.parse("CONT");

  private final String jobId;
  private final Launcher launcher;
  private final Suspender suspender;
  private final TimerScheduler<JobActor.Command> timers;
  private final JobActor.Command escalate;
  private final Logger log;
  private String reason;

  /**
   * @param escalate the message the job's actor gets when the kill delay has passed
   */
  KillHook(
      String jobId,
      Launcher launcher,
      Suspender suspender,
      TimerScheduler<JobActor.Command> timers,
      JobActor.Command escalate,
      Logger log) {
    this.jobId = jobId;
    this.launcher = launcher;
    this.suspender = suspender;
    this.timers = timers;
    this.escalate = escalate;
    this.log = log;
  }

  /** Whether the job is being killed (or ended before its script ran). */
  boolean killing() {
    return reason != null;
  }

  /** Why the job is killed, or null. */
  String reason() {
    return reason;
  }

  /** Kills {@code session} for {@code why}, unless it is being killed already. */
  void kill(JobProcess session, String why, int killDelay) {
    if (reason != null) {
      return;
    }
    reason = why;
    log.info("killing job {}: {}", jobId, why);
    // the timer before the signal, so that whoever sees the signal knows the delay runs
    timers.startSingleTimer(escalate, Duration.ofSeconds(Math.max(0, killDelay)));
    suspender.thawToEnd();
    launcher.signalJob(session.pid(), Signals.SIGTERM);
  }

  /** The kill delay has passed: SIGKILL. */
  void escalate(JobProcess session) {
    launcher.signalJob(session.pid(), Signals.SIGKILL);
  }

  /** qsig: {@code signal} for the session. */
  void signal(JobProcess session, int signal) {
    if (suspender.suspended() && signal == SIGCONT) {
      // the server refuses qsig for a suspended job; SIGCONT would undo a SIGSTOP
      log.warn("job {} is suspended: SIGCONT not sent", jobId);
    } else {
      launcher.signalJob(session.pid(), signal);
    }
  }

  /** The job ends before its script ran, for {@code why}. */
  void notStarted(String why) {
    reason = why;
  }
}
