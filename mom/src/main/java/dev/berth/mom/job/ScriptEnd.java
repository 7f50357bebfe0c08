package dev.berth.mom.job;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.JobObitReport;
import java.util.Optional;

/**
 * How a job's script ended, as its mother superior knows it once the starter has exited, and the
 * obit that follows from it: the starter's status line decides the exit status and usage, unless
 * the mom ended the job itself (its walltime, a job-wide limit, a hung-up terminal), which the obit
 * says instead; a job whose status line is gone was killed, or ended while no mom watched. Pure:
 * the actor gathers the facts, this decides.
 *
 * @param starterLine the status line berth-starter wrote, if it did
 * @param ranMillis how long the script ran, less any time it was suspended
 * @param killReason why the mom ended the job (qdel, walltime, a limit, a hang-up); null if not
 * @param overLimit the job-wide limit it went over; null if none
 */
public record ScriptEnd(
    String node,
    String jobId,
    long endMillis,
    Optional<String> starterLine,
    long ranMillis,
    String killReason,
    boolean walltimeExceeded,
    UsageLimits.Over overLimit,
    boolean hungUp) {

  /** The obit, before the tasks', GPUs', cgroup's and sisters' figures join its usage. */
  public JobObitReport.Builder obit() {
    JobObitReport.Builder obit =
        JobObitReport.newBuilder().setNode(node).setJobId(jobId).setEndTime(endMillis / 1000);
    if (starterLine.isEmpty()) {
      obit.setExitStatus(
              killReason != null ? ExitStatus.killedBy(Signals.SIGKILL) : ExitStatus.LOST.code())
          .setReason(
              killReason != null
                  ? ""
                  : "the job's processes ended while the mom could not watch them");
    } else {
      StarterStatus status = StarterStatus.parse(starterLine.get());
      obit.setExitStatus(status.exitStatus()).setResourcesUsed(status.usage(ranMillis / 1000));
      if (status.kind() == StarterStatus.Kind.FAILED) {
        obit.setReason("could not start on " + node + ": " + status.message());
      }
    }
    if (walltimeExceeded) {
      obit.setExitStatus(ExitStatus.OVER_WALLTIME.code()).setReason(killReason);
    } else if (overLimit != null) {
      obit.setExitStatus(overLimit.exitStatus()).setReason(killReason);
    } else if (hungUp) {
      obit.setReason(killReason); // the job's comment and tracejob say why it ended
    }
    return obit;
  }
}
