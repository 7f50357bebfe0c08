package dev.berth.mom.lifecycle;

import dev.berth.mom.MomConfig;
import dev.berth.mom.nodejob.JobLaunch;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.StartSpec;
import dev.berth.proto.RunJob;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * How the job's script starts on this node: its node files (PBS_NODEFILE, PBS_GPUFILE), its
 * environment, output files (and their spool), working directory and container, as the starter's
 * {@link StartSpec}; made before the script, and made again after a restart for the job's tasks and
 * notices (a job whose owner has gone runs on without them). The spec changes as the job goes: its
 * output is appended to once a prologue wrote to it, and an interactive session gets its terminal.
 */
final class LaunchHook implements JobHook {
  private final RunJob run;
  private final MomConfig config;
  private final dev.berth.mom.store.JobRecords records;
  private final Supplier<List<Path>> cgroupProcs;
  private final Path tmSocket;
  private final Logger log;

  /** The job's account here; null before, and after a restart that cannot serve it again. */
  private NodeJob nodeJob;

  private JobLaunch.Prepared prepared;
  private StartSpec spec;

  /**
   * @param cgroupProcs the cgroup.procs files the job's processes join, once its cgroup is made
   * @param tmSocket the node's task-manager socket, or null when this mom cannot serve one
   */
  LaunchHook(
      RunJob run,
      MomConfig config,
      dev.berth.mom.store.JobRecords records,
      Supplier<List<Path>> cgroupProcs,
      Path tmSocket,
      Logger log) {
    this.run = run;
    this.config = config;
    this.records = records;
    this.cgroupProcs = cgroupProcs;
    this.tmSocket = tmSocket;
    this.log = log;
  }

  @Override
  public void prestart(NodeJob nodeJob) throws JobLaunch.LaunchException {
    this.nodeJob = nodeJob;
    JobLaunch.writeNodeFiles(nodeJob);
    JobLaunch.Prepared made = prepare(nodeJob);
    JobLaunch.makeSpool(nodeJob, config, made); // before the script, which writes to it
    use(made);
  }

  @Override
  public void recover(NodeJob nodeJob) {
    try {
      use(prepare(nodeJob));
      this.nodeJob = nodeJob;
    } catch (JobLaunch.LaunchException e) {
      lost(e.getMessage());
    }
  }

  /** After a restart: the job's account here is gone ({@code why}); it runs on without it. */
  void lost(String why) {
    log.warn("job {}: cannot serve its tasks again: {}", run.getJob().getId(), why);
    nodeJob = null;
  }

  private JobLaunch.Prepared prepare(NodeJob nodeJob) throws JobLaunch.LaunchException {
    return JobLaunch.prepare(
        nodeJob, run.getScript(), cgroupProcs.get(), config, records, tmSocket);
  }

  private void use(JobLaunch.Prepared made) {
    prepared = made;
    spec = made.spec();
  }

  /** The job's account here, or null. */
  NodeJob nodeJob() {
    return nodeJob;
  }

  /** The script's start, or null before it is made. */
  StartSpec spec() {
    return spec;
  }

  /** What the script's start writes to the spool, for delivery after it; empty before. */
  List<dev.berth.mom.output.OutputFiles.Spooled> spooled() {
    return prepared == null ? List.of() : prepared.spooled();
  }

  /** A prologue wrote to the job's output files: the script appends to them. */
  void appendOutput() {
    spec = spec.appending();
  }

  /** The interactive session's start, on its terminal. */
  void startOn(StartSpec onTerminal) {
    spec = onTerminal;
  }
}
