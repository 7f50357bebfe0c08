package dev.berth.mom.lifecycle;

import dev.berth.core.Durations;
import dev.berth.mom.nodejob.Suspender;
import dev.berth.mom.os.JobProcess;
import dev.berth.proto.Job;
import java.time.Clock;
import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The job's walltime: a timer set to what is left of it while the script runs, stopped while the
 * job is suspended (its walltime stands still meanwhile, also across a mom restart, since the
 * suspensions are recorded). Passed, it kills the job, whose exit status and reason say so.
 */
final class WalltimeHook implements JobHook {
  private final Job job;
  private final TimerScheduler<JobActor.Command> timers;
  private final JobActor.Command timer;
  private final Suspender suspender;
  private final Clock clock;
  private JobProcess session;
  private boolean exceeded;

  /**
   * @param timer the message the job's actor gets when the walltime has passed
   */
  WalltimeHook(
      Job job,
      TimerScheduler<JobActor.Command> timers,
      JobActor.Command timer,
      Suspender suspender,
      Clock clock) {
    this.job = job;
    this.timers = timers;
    this.timer = timer;
    this.suspender = suspender;
    this.clock = clock;
  }

  @Override
  public void poststart(JobProcess session) {
    this.session = session;
    if (!suspender.suspended()) {
      start();
    }
  }

  /** After a SuspendJob was carried out: the timer stops while the job is frozen. */
  void suspensionChanged() {
    if (suspender.suspended()) {
      timers.cancel(timer);
    } else {
      start();
    }
  }

  private void start() {
    long walltime = job.getResources().getWalltime();
    if (walltime > 0) {
      timers.startSingleTimer(timer, Duration.ofMillis(Math.max(0, walltime * 1000 - ranMillis())));
    }
  }

  private long ranMillis() {
    return suspender.state().ranMillis(session.launchedMillis(), clock.millis());
  }

  /** The walltime has passed: the kill's reason, which the job's owner is told. */
  String passed() {
    long limit = job.getResources().getWalltime();
    exceeded = true;
    return "job killed: walltime "
        + ranMillis() / 1000
        + " exceeded limit "
        + limit
        + " ("
        + Durations.format(limit)
        + ")";
  }

  boolean exceeded() {
    return exceeded;
  }
}
