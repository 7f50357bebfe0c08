package dev.berth.mom.nodejob;

import com.google.protobuf.ByteString;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.mom.MomConfig;
import dev.berth.mom.job.ContainerPlan;
import dev.berth.mom.job.JobEnvironment;
import dev.berth.mom.job.JobGpus;
import dev.berth.mom.job.JobLimits;
import dev.berth.mom.job.NodeFile;
import dev.berth.mom.job.SlurmEnvironment;
import dev.berth.mom.os.ContainerSpec;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.SessionJobId;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.os.UserInfo;
import dev.berth.mom.output.OutputFiles;
import dev.berth.mom.output.OutputSpool;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything between a prepared {@link NodeJob} and the job script's process: the nodefile and
 * gpufile, the environment, output files and working directory. Each step is a small piece of its
 * own (JobEnvironment, NodeFile, OutputFiles); this class puts them in order.
 */
public final class JobLaunch {
  /** The job cannot start on this node; the message says why. */
  public static final class LaunchException extends Exception {
    private static final long serialVersionUID = 1L;

    LaunchException(String message) {
      super(message);
    }
  }

  /**
   * @param spooled the streams the script writes to the spool, for delivery afterwards
   */
  public record Prepared(StartSpec spec, List<OutputFiles.Spooled> spooled) {}

  private JobLaunch() {}

  /**
   * Writes PBS_NODEFILE, and PBS_GPUFILE for a job with GPUs, into the job's new TMPDIR on this
   * node (every node has them, for its tasks); only once, since the directory is the owner's to
   * change afterwards.
   */
  public static void writeNodeFiles(NodeJob nodeJob) throws LaunchException {
    write(nodefile(nodeJob), NodeFile.lines(nodeJob.job()));
    if (JobGpus.any(nodeJob.job())) {
      write(gpufile(nodeJob), JobGpus.fileLines(nodeJob.job()));
    }
  }

  private static void write(Path file, List<String> lines) throws LaunchException {
    try {
      JobFiles.writeReadable(file, lines);
    } catch (IOException e) {
      throw new LaunchException("cannot write " + file + ": " + e.getMessage());
    }
  }

  public static Path nodefile(NodeJob nodeJob) {
    return nodeJob.tmpdir().resolve("nodefile");
  }

  public static Path gpufile(NodeJob nodeJob) {
    return nodeJob.tmpdir().resolve("gpufile");
  }

  /**
   * The job's container on this node, or null for a job without one: its image, the owner's cache
   * directory here (made if missing), and what it needs inside besides (its TMPDIR, Berth's tools,
   * the task manager's socket directory {@code tmDir} when there is one, its GPUs).
   */
  public static ContainerSpec container(NodeJob nodeJob, MomConfig config, Path tmDir)
      throws LaunchException {
    Job job = nodeJob.job();
    if (!job.hasContainer()) {
      return null;
    }
    if (config.containers() == null) {
      throw new LaunchException("node " + config.name() + " runs no containers");
    }
    Path cache;
    try {
      cache = config.containers().forOwner(nodeJob.user(), nodeJob.gid());
    } catch (IOException e) {
      throw new LaunchException(
          "cannot make the container cache on " + config.name() + ": " + e.getMessage());
    }
    List<Path> shared = new ArrayList<>();
    if (config.tools() != null) {
      shared.addAll(ContainerPlan.toolDirectories(config.tools(), Files::isExecutable));
    }
    if (tmDir != null) {
      shared.add(tmDir);
    }
    return ContainerPlan.of(
            job,
            nodeJob.user().home(),
            cache,
            nodeJob.tmpdir(),
            shared,
            gpus(nodeJob, config).held(),
            ContainerPlan.NVIDIA_CONTROL.stream().filter(Files::exists).toList())
        .orElse(null);
  }

  /** The job's GPUs on this node (checked against the node's when its cgroup was made). */
  static JobGpus gpus(NodeJob nodeJob, MomConfig config) throws LaunchException {
    try {
      return JobGpus.of(nodeJob.job(), config.name(), config.gpus());
    } catch (JobGpus.Mismatch e) {
      throw new LaunchException(e.getMessage());
    }
  }

  /**
   * The script's start: environment, output files, working directory; writes nothing.
   *
   * @param tmSocket the node's task-manager socket, or null when this mom cannot serve one
   */
  public static Prepared prepare(
      NodeJob nodeJob,
      ByteString script,
      List<Path> cgroupProcs,
      MomConfig config,
      JobRecords records,
      Path tmSocket)
      throws LaunchException {
    Job job = nodeJob.job();
    UserInfo user = nodeJob.user();
    Path nodefile = nodefile(nodeJob);
    String shell =
        !job.getShell().isEmpty()
            ? job.getShell()
            : user.shell().isEmpty() ? "/bin/sh" : user.shell();
    Map<String, String> env =
        JobEnvironment.build(
            job,
            new JobEnvironment.Owner(user.name(), user.home(), shell),
            nodeJob.tmpdir(),
            nodefile,
            config.version());
    if (SlurmJobs.sbatch(job)) {
      SlurmEnvironment.addTo(env, job, config.name(), user.name(), user.uid(), nodeJob.gid());
    }
    if (tmSocket != null) {
      JobEnvironment.addTaskManager(env, tmSocket, config.tools(), config.nodeHostname());
    }
    gpus(nodeJob, config).addTo(env, gpufile(nodeJob));
    Path cwd = Path.of(job.getInitWorkDir().isEmpty() ? user.home() : job.getInitWorkDir());
    String argv0 = "-" + Path.of(shell).getFileName();
    if (job.hasInteractive()) {
      return new Prepared(
          interactive(nodeJob, shell, argv0, cwd, env, cgroupProcs, config, records, tmSocket),
          List.of());
    }
    if (job.getOutputPath().isEmpty() || job.getErrorPath().isEmpty()) {
      throw new LaunchException("the job has no output or error path");
    }
    OutputFiles.Paths out =
        OutputFiles.of(
            job,
            env,
            Files::isDirectory,
            config.output(),
            OutputSpool.directory(config.tmpBase(), job.getId()));
    StartSpec spec =
        new StartSpec(
            nodeJob.runAs(),
            nodeJob.gid(),
            cwd,
            script.toByteArray(),
            out.stdout(),
            out.stderr(),
            out.join(),
            job.getExtensionsOrDefault("umask", ""),
            cgroupProcs,
            records.statusFile(job.getId()),
            argv0,
            List.of(shell),
            env,
            false,
            false,
            config.hostname(),
            container(nodeJob, config, tmSocket == null ? null : tmSocket.getParent()),
            SessionJobId.of(config.sessionJobIdFile(), job.getId()),
            null,
            JobLimits.of(job.getResources()));
    return new Prepared(spec, out.spooled());
  }

  /**
   * An interactive job's shell: a login shell, or {@code SHELL -c COMMAND} for qsub -x, with no
   * script and no output files; its terminal is given when the owner's qsub attaches ({@link
   * StartSpec#onTerminal}).
   */
  private static StartSpec interactive(
      NodeJob nodeJob,
      String shell,
      String argv0,
      Path cwd,
      Map<String, String> env,
      List<Path> cgroupProcs,
      MomConfig config,
      JobRecords records,
      Path tmSocket)
      throws LaunchException {
    Job job = nodeJob.job();
    String command = job.getInteractive().getCommand();
    return new StartSpec(
        nodeJob.runAs(),
        nodeJob.gid(),
        cwd,
        null,
        null,
        null,
        false,
        job.getExtensionsOrDefault("umask", ""),
        cgroupProcs,
        records.statusFile(job.getId()),
        argv0,
        command.isEmpty() ? List.of(shell) : List.of(shell, "-c", command),
        env,
        false,
        false,
        config.hostname(),
        container(nodeJob, config, tmSocket == null ? null : tmSocket.getParent()),
        SessionJobId.of(config.sessionJobIdFile(), job.getId()),
        null,
        JobLimits.of(job.getResources()));
  }

  /** Makes the job's spool if a stream of it goes there (before the script, which writes it). */
  public static void makeSpool(NodeJob nodeJob, MomConfig config, Prepared prepared)
      throws LaunchException {
    if (prepared.spooled().isEmpty()) {
      return;
    }
    Path spool = OutputSpool.directory(config.tmpBase(), nodeJob.job().getId());
    try {
      OutputSpool.create(spool, nodeJob.runAs(), nodeJob.gid());
    } catch (IOException e) {
      throw new LaunchException("cannot create the output spool " + spool + ": " + e.getMessage());
    }
  }
}
