package dev.berth.mom.nodejob;

import dev.berth.core.Signals;
import dev.berth.mom.Isolation;
import dev.berth.mom.job.Suspension;
import dev.berth.mom.os.cgroup.JobCgroup;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.JobSuspendReport;
import dev.berth.proto.ServerInbound;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.slf4j.Logger;

/**
 * One job's suspension on this node, for its actor (mother superior or sister): carries out the
 * server's SuspendJob, also a repeated one, and answers once the job's processes here are frozen or
 * thawed.
 *
 * <p>The processes freeze through the job's cgroup freezer where it has one: the kernel then holds
 * every process of the job, those that left its session and those it forks meanwhile included, and
 * its starter with them. A job without a cgroup here, or on a host whose cgroups cannot freeze (no
 * freezer hierarchy in v1, Linux before 5.2 in v2), still gets suspended, by SIGSTOP and SIGCONT
 * sent the way its other signals go (its session and its tasks): a process that started a session
 * of its own escapes them, as it escapes qsig, and the starter is not stopped, so that it can still
 * report the job's end.
 *
 * <p>A change is recorded once the processes are frozen or thawed and before the server hears of
 * it, so that a restarted mom knows the job is frozen, and since when; a restart between the two
 * leaves the order unanswered, and the server's resend completes it.
 */
public final class Suspender {
  /**
   * How long a freeze may take: a process in uninterruptible sleep (e.g. on NFS) freezes only when
   * it comes out of it. A freeze that takes longer is undone until the server asks again.
   */
  static final Duration FREEZE_WAIT = Duration.ofSeconds(2);

  private static final int SIGSTOP = Signals.parse("STOP");
  private static final int SIGCONT = Signals.parse("CONT");

  private final String jobId;
  private final String node;
  private final Isolation isolation;
  private final IntConsumer signal;
  private final JobRecords records;
  private final Consumer<ServerInbound> toServer;
  private final Clock clock;
  private final Logger log;
  private Suspension state = Suspension.NONE;

  /**
   * @param signal sends a signal to every process of the job on this node that signals reach
   */
  public Suspender(
      String jobId,
      String node,
      Isolation isolation,
      IntConsumer signal,
      JobRecords records,
      Consumer<ServerInbound> toServer,
      Clock clock,
      Logger log) {
    this.jobId = jobId;
    this.node = node;
    this.isolation = isolation;
    this.signal = signal;
    this.records = records;
    this.toServer = toServer;
    this.clock = clock;
    this.log = log;
  }

  /** The suspensions a restarted mom finds in the job's record. */
  public void restore(Suspension recorded) {
    state = recorded;
  }

  public Suspension state() {
    return state;
  }

  public boolean suspended() {
    return state.suspended();
  }

  /** Carries out a SuspendJob for a job that runs here. */
  public void order(boolean suspend) {
    order(suspend, () -> {});
  }

  /**
   * Carries out a SuspendJob for a job that runs here; {@code settled} runs once the job is frozen
   * or thawed (or left as it was), before the server hears of it, so that what follows the
   * suspension here (the walltime's timer) is in place by the time anyone can see the answer.
   */
  public void order(boolean suspend, Runnable settled) {
    boolean answer = suspend ? suspend() : resume();
    settled.run();
    if (answer) {
      report(suspend);
    }
  }

  /**
   * Answers a SuspendJob for a job that is not running here, because it is ending or has not
   * started yet: {@code suspended=false}, since nothing of it is frozen here. An ending job is not
   * frozen: its processes are being ended, a frozen starter could not report the end, and the
   * server learns of the end from the obit that follows anyway.
   */
  public void answerNotRunning() {
    report(false);
  }

  /**
   * The job is to end: its processes run again first, so that they see the signals that end it (a
   * process stopped by SIGSTOP sees SIGTERM only once continued, one frozen by cgroup v1 not even
   * SIGKILL until thawed). A cgroup is thawed even where no suspension is recorded, since a mom
   * restart may have come between a freeze and its record.
   */
  public void thawToEnd() {
    Optional<JobCgroup> cgroup = isolation.freezer(jobId);
    try {
      if (cgroup.isPresent()) {
        cgroup.get().thaw();
      } else if (state.suspended()) {
        signal.accept(SIGCONT);
      }
    } catch (IOException e) {
      log.warn("job {}: cannot thaw it to end it: {}", jobId, e.getMessage());
    }
    if (state.suspended()) {
      Suspension ended = state.end(clock.millis());
      if (!record(ended)) {
        state = ended; // its frozen time ends here all the same
      }
    }
  }

  /** Whether the job is frozen now, and the server is to hear so. */
  private boolean suspend() {
    if (freeze() && (state.suspended() || record(state.begin(clock.millis())))) {
      return true;
    }
    if (!state.suspended()) {
      thaw(); // not recorded, not frozen: as it was, until the server asks again
    }
    return false;
  }

  /** Whether the job runs again now, and the server is to hear so. */
  private boolean resume() {
    return thaw() && (!state.suspended() || record(state.end(clock.millis())));
  }

  /** Whether every process of the job here is frozen now. */
  private boolean freeze() {
    Optional<JobCgroup> cgroup = isolation.freezer(jobId);
    if (cgroup.isEmpty()) {
      signal.accept(SIGSTOP);
      return true;
    }
    try {
      if (cgroup.get().freeze(FREEZE_WAIT)) {
        return true;
      }
      log.warn(
          "job {}: not every process froze within {} s; left running until the server asks again",
          jobId,
          FREEZE_WAIT.toSeconds());
    } catch (IOException e) {
      log.warn("job {}: cannot freeze it: {}", jobId, e.getMessage());
    }
    return false;
  }

  private boolean thaw() {
    Optional<JobCgroup> cgroup = isolation.freezer(jobId);
    if (cgroup.isEmpty()) {
      signal.accept(SIGCONT);
      return true;
    }
    try {
      cgroup.get().thaw();
      return true;
    } catch (IOException e) {
      log.warn("job {}: cannot thaw it: {}", jobId, e.getMessage());
      return false;
    }
  }

  private boolean record(Suspension next) {
    try {
      records.recordSuspension(jobId, next);
    } catch (IOException e) {
      log.warn("job {}: cannot record its suspension: {}", jobId, e.getMessage());
      return false;
    }
    log.info("job {} {} on this node", jobId, next.suspended() ? "suspended" : "resumed");
    state = next;
    return true;
  }

  private void report(boolean suspended) {
    toServer.accept(
        ServerInbound.newBuilder()
            .setSuspendReport(
                JobSuspendReport.newBuilder().setNode(node).setJobId(jobId).setSuspended(suspended))
            .build());
  }
}
