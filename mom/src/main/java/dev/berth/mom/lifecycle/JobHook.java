package dev.berth.mom.lifecycle;

import dev.berth.mom.nodejob.JobLaunch;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.JobProcess;
import dev.berth.proto.JobObitReport;
import java.io.IOException;

/**
 * One concern of a job on its mother superior (its cgroup, GPUs, output, limits, walltime, tasks,
 * terminal), which the job's lifecycle ({@link JobActor}) calls at the named points of its phases
 * (docs/mom-job-states.md), as Nomad's task runner calls its hooks. A hook keeps its concern's
 * state and makes its concern's decisions; the lifecycle decides only when, and in which order: the
 * order of its hooks. Each point does nothing unless a hook says otherwise, so a hook implements
 * only the points it needs, and a new concern is a new hook.
 */
interface JobHook {
  /**
   * PREPARING, once the job's account here is checked: makes what the concern needs before the
   * script starts. A refusal ends the job before it started, with the message as its reason.
   */
  default void prestart(NodeJob nodeJob)
      throws NodeJob.RefusedException, JobLaunch.LaunchException, IOException {}

  /** RECOVERING: finds again what {@link #prestart} made, for a mom that restarted. */
  default void recover(NodeJob nodeJob) {}

  /** RUNNING: the script's session runs, started here or found again after a restart. */
  default void poststart(JobProcess session) {}

  /** ENDING_TASKS: the script has ended; what watched it stops. */
  default void exited() {}

  /** FINISHING, in the hooks' order: what the concern adds to the obit. */
  default void finish(JobObitReport.Builder obit) {}
}
