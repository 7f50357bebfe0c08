package dev.berth.mom.lifecycle;

import dev.berth.core.Signals;
import dev.berth.mom.MomActor;
import dev.berth.mom.nodejob.JobTeardown;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobStartedReport;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import java.io.IOException;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;

/**
 * The job's record on this node and its reports to the server, which the record lets a restarted
 * mom make again: the record is made before anything else of the job; the session is recorded
 * before it is reported (a session that cannot be recorded is killed: it must not run unwatched);
 * the start is sent at every resend until acknowledged; the obit is recorded, then sent at every
 * resend until acknowledged; and only then does the record go.
 */
final class JobReports {
  private final String jobId;
  private final String node;
  private final JobRecords records;
  private final Launcher launcher;
  private final ActorRef<MomActor.Command> mom;
  private final JobTeardown teardown;
  private final Logger log;

  /** The start as reported: its session (0 before the session of an interactive job) and time. */
  private long session;

  private LongSupplier startMillis;
  private boolean startAcked;
  private JobObitReport obit;

  JobReports(
      String jobId,
      String node,
      JobRecords records,
      Launcher launcher,
      ActorRef<MomActor.Command> mom,
      JobTeardown teardown,
      Logger log) {
    this.jobId = jobId;
    this.node = node;
    this.records = records;
    this.launcher = launcher;
    this.mom = mom;
    this.teardown = teardown;
    this.log = log;
  }

  /** PREPARING: the job's record, before anything else of it is made. */
  void create(RunJob run) throws IOException {
    records.create(run);
  }

  /** STARTING: the session is recorded, or killed and the start fails. */
  void session(JobProcess process) throws IOException {
    try {
      records.recordProcess(jobId, process.pid(), process.identity(), process.launchedMillis());
    } catch (IOException e) {
      launcher.signalJob(process.pid(), Signals.SIGKILL);
      throw new IOException(
          "cannot record the job's process (" + e.getMessage() + "); killed it", e);
    }
  }

  /**
   * The start of {@code session} (0: the session is yet to come), at {@code startMillis} (asked
   * again at each resend); sent now and at every resend until acknowledged.
   */
  void started(long session, LongSupplier startMillis) {
    this.session = session;
    this.startMillis = startMillis;
    sendStarted();
  }

  void startAcked() {
    startAcked = true;
  }

  /** At every resend: the start again, while the server has not acknowledged it. */
  void resendStarted() {
    if (!startAcked) {
      sendStarted();
    }
  }

  private void sendStarted() {
    report(
        ServerInbound.newBuilder()
            .setStarted(
                JobStartedReport.newBuilder()
                    .setNode(node)
                    .setJobId(jobId)
                    .setSessionId(session)
                    .setStartTime(startMillis.getAsLong() / 1000))
            .build());
  }

  /** ENDED: the obit is recorded, so that a restarted mom sends it again, and sent. */
  void ended(JobObitReport obit) {
    this.obit = obit;
    try {
      records.recordObit(jobId, obit);
    } catch (IOException e) {
      log.warn("job {}: cannot record its obit: {}", jobId, e.getMessage());
    }
    resendObit();
  }

  /** At every resend until the server acknowledges it. */
  void resendObit() {
    report(ServerInbound.newBuilder().setObit(obit).build());
  }

  /** The server has the obit: the record goes, and the mom forgets the job. */
  void obitAcked() {
    teardown.removeRecord();
    mom.tell(new MomActor.JobGone(jobId));
  }

  /** Anything else for the server (a suspension's report) goes the same way. */
  void report(ServerInbound message) {
    mom.tell(new MomActor.ToServer(message));
  }
}
