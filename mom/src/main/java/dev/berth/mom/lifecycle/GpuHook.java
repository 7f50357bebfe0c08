package dev.berth.mom.lifecycle;

import dev.berth.mom.MomConfig;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.gpu.GpuMonitor;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;

/**
 * The job's GPUs on this node: watched from before the script (their utilisation and memory are
 * sampled for resources_used) until the obit, which says how many GPUs the job held on all its
 * nodes and what the samples of this node's came to.
 */
final class GpuHook implements JobHook {
  private final Job job;
  private final MomConfig config;

  GpuHook(Job job, MomConfig config) {
    this.job = job;
    this.config = config;
  }

  @Override
  public void prestart(NodeJob nodeJob) {
    monitor().watch(job, config.name(), config.gpus());
  }

  @Override
  public void finish(JobObitReport.Builder obit) {
    ResourcesUsed used =
        obit.getResourcesUsed().toBuilder()
            .setGpus(job.getExecNodesList().stream().mapToInt(NodeAllocation::getGpuIdsCount).sum())
            .build();
    obit.setResourcesUsed(monitor().finish(job.getId(), used));
  }

  private GpuMonitor monitor() {
    return config.gpuMonitor();
  }
}
