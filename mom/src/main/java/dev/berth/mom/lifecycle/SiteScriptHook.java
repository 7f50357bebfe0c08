package dev.berth.mom.lifecycle;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.JobServices;
import dev.berth.mom.MomConfig;
import dev.berth.mom.job.HookPlan;
import dev.berth.mom.nodejob.HookActor;
import dev.berth.mom.nodejob.JobLaunch;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.StartSpec;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import java.util.List;
import java.util.function.Function;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * The site's prologues and epilogues (Torque's mom_priv scripts) around the job's script, as root
 * and as the owner, on a child actor that answers when they have run; none without a site
 * directory. A prologue's output starts the job's output files (an interactive job has none), and
 * the script then appends to them. Torque's rules decide a prologue's failure: exit 1 aborts the
 * job, any other failure queues it again. The epilogues follow the script's end, and a prologue
 * that failed, with the job's exit status and usage; their failure changes nothing.
 */
final class SiteScriptHook {
  /** Why the prologues stopped the job, and how it ends. */
  record Failure(String reason, int exitStatus, boolean requeue) {}

  private final Job job;
  private final ActorContext<JobActor.Command> context;
  private final JobServices services;
  private final LaunchHook launch;
  private final Function<HookActor.Result, JobActor.Command> done;

  /**
   * @param done the message the job's actor gets when the scripts have run
   */
  SiteScriptHook(
      Job job,
      ActorContext<JobActor.Command> context,
      JobServices services,
      LaunchHook launch,
      Function<HookActor.Result, JobActor.Command> done) {
    this.job = job;
    this.context = context;
    this.services = services;
    this.launch = launch;
    this.done = done;
  }

  private MomConfig config() {
    return services.config();
  }

  /** Starts the prologues; false when this node has none, and the script starts at once. */
  boolean prologues() {
    if (config().site().directory() == null) {
      return false;
    }
    NodeJob nodeJob = launch.nodeJob();
    run(
        HookPlan.prologues(job, config().name(), nodeJob.tmpdir(), JobLaunch.nodefile(nodeJob)),
        true,
        true);
    return true;
  }

  /** How the prologues went: null when the script is to start, else why and how the job ends. */
  Failure prologuesDone(HookActor.Result r) {
    if (r.ok()) {
      if (r.wroteOutput()) {
        launch.appendOutput();
      }
      return null;
    }
    return new Failure(
        r.reason(config().name()),
        r.aborts() ? ExitStatus.PROLOGUE_ABORTED.code() : ExitStatus.EXEC_FAILED.code(),
        !r.aborts());
  }

  /**
   * Starts the epilogues for a job whose end {@code obit} tells, whose session was {@code session}
   * (0: it had none); false when this node has none or the job never had a start to end.
   */
  boolean epilogues(JobObitReport.Builder obit, long session) {
    if (config().site().directory() == null || launch.spec() == null) {
      return false;
    }
    NodeJob nodeJob = launch.nodeJob();
    HookPlan.Ending end =
        new HookPlan.Ending(session, obit.getExitStatus(), obit.getResourcesUsed());
    run(
        HookPlan.epilogues(
            job, config().name(), nodeJob.tmpdir(), JobLaunch.nodefile(nodeJob), end),
        false,
        false);
    return true;
  }

  private void run(List<HookPlan.Call> calls, boolean stopAtFailure, boolean startsOutput) {
    boolean files = !job.hasInteractive(); // an interactive job has no output files
    StartSpec spec = launch.spec();
    HookActor.spawn(
        context,
        config(),
        launch.nodeJob(),
        files ? spec : null,
        startsOutput && files,
        services.launcher(),
        services.records(),
        calls,
        stopAtFailure,
        done);
  }
}
