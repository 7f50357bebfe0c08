package dev.berth.mom.lifecycle;

import dev.berth.mom.Isolation;
import dev.berth.mom.MomConfig;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.nodejob.JobTeardown;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.cgroup.JobCgroup;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The job's cgroup on its mother superior, where the job has one (it asks for isolation, or the
 * node has GPUs): made before anything of the job runs, found again after a restart; at the end,
 * what is left in it is ended and what it measured replaces the starter's figures in the obit, its
 * OOM kills named in the obit's reason and on the job's stderr; its directories go once the obit is
 * on its way.
 */
final class CgroupHook implements JobHook {
  private final Job job;
  private final MomConfig config;
  private final Isolation isolation;
  private final JobTeardown teardown;
  private final JobProcesses processes;
  private final Consumer<String> tellUser;

  /** The cgroup.procs files the job's processes join; empty without a cgroup. */
  private List<Path> procs = List.of();

  /**
   * @param processes where the job-wide limits and the task manager look for the job's processes
   * @param tellUser tells the job's owner a line (on its terminal or in its stderr)
   */
  CgroupHook(
      Job job,
      MomConfig config,
      Isolation isolation,
      JobTeardown teardown,
      JobProcesses processes,
      Consumer<String> tellUser) {
    this.job = job;
    this.config = config;
    this.isolation = isolation;
    this.teardown = teardown;
    this.processes = processes;
    this.tellUser = tellUser;
  }

  @Override
  public void prestart(NodeJob nodeJob) throws NodeJob.RefusedException {
    use(isolation.create(job, config.name(), config.gpus()).map(JobCgroup::procsFiles));
  }

  @Override
  public void recover(NodeJob nodeJob) {
    use(isolation.find(job.getId()).map(JobCgroup::procsFiles));
  }

  private void use(java.util.Optional<List<Path>> found) {
    procs = found.orElse(List.of());
    processes.cgroups(procs);
  }

  List<Path> procs() {
    return procs;
  }

  /** Whether a cgroup holds the job's processes (and ends them all when it stops). */
  boolean holdsTheJob() {
    return !procs.isEmpty();
  }

  /**
   * Ends whatever is left in the cgroup; what it measured replaces the starter's figures, and the
   * processes it OOM-killed are reported in the obit's reason and on the job's stderr.
   */
  @Override
  public void finish(JobObitReport.Builder obit) {
    teardown
        .stopCgroup()
        .ifPresent(
            usage -> {
              obit.setResourcesUsed(Isolation.merge(obit.getResourcesUsed(), usage));
              if (usage.oomKills() > 0) {
                String reason = Isolation.memoryReason(job, config.name(), usage.oomKills());
                tellUser.accept("=>> PBS: " + reason);
                obit.setReason(
                    obit.getReason().isEmpty() ? reason : obit.getReason() + "; " + reason);
              }
            });
  }

  /** The cgroup's directories go, once nothing of the job runs (idempotent). */
  void remove() {
    teardown.removeCgroup();
  }
}
