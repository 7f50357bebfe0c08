package dev.berth.mom.tm;

import dev.berth.mom.MomConfig;
import dev.berth.mom.job.JobGpus;
import dev.berth.mom.job.JobLimits;
import dev.berth.mom.nodejob.JobLaunch;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.ContainerSpec;
import dev.berth.mom.os.PeerCredentials;
import dev.berth.mom.os.ProcessFacts;
import dev.berth.mom.os.SessionJobId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The pieces a job's tasks need on a node: what a task starts with there, and on the mother
 * superior where the task-manager socket lives and who may use it.
 */
public final class JobTasks {
  /** sun_path holds 108 bytes, the terminating zero included. */
  private static final int MAX_SOCKET_PATH = 107;

  /** How far up its parents a connecting process is traced to the job. */
  private static final int MAX_ANCESTRY = 64;

  private JobTasks() {}

  public static TaskHost.Context context(
      NodeJob nodeJob,
      MomConfig config,
      boolean motherSuperior,
      List<Path> cgroupProcs,
      JobProcesses processes) {
    return new TaskHost.Context(
        nodeJob.job().getId(),
        config.name(),
        motherSuperior,
        nodeJob.runAs(),
        nodeJob.gid(),
        nodeJob.job().getExtensionsOrDefault("umask", ""),
        cgroupProcs,
        nodeJob.tmpdir(),
        JobLaunch.nodefile(nodeJob),
        gpus(nodeJob, config),
        JobLaunch.gpufile(nodeJob),
        Path.of(nodeJob.user().home()),
        config.hostname(),
        nodeJob.job().hasContainer(),
        container(nodeJob, config),
        SessionJobId.of(config.sessionJobIdFile(), nodeJob.job().getId()),
        JobLimits.of(nodeJob.job().getResources()),
        processes);
  }

  /**
   * The job's container for its tasks here; null without one, and when the node cannot give it (the
   * job script's start, or the sister's join, has then failed with the reason already, and the task
   * host refuses the job's tasks).
   */
  private static ContainerSpec container(NodeJob nodeJob, MomConfig config) {
    try {
      return JobLaunch.container(
          nodeJob, config, nodeJob.job().hasContainer() ? socket(config).getParent() : null);
    } catch (JobLaunch.LaunchException | IOException e) {
      return null;
    }
  }

  /**
   * The job's GPUs here for its tasks. A mom restarted with other GPUs than the job started with
   * gives its tasks none: the job's cgroup, made when they matched, still decides what it opens.
   */
  private static JobGpus gpus(NodeJob nodeJob, MomConfig config) {
    try {
      return JobGpus.of(nodeJob.job(), config.name(), config.gpus());
    } catch (JobGpus.Mismatch e) {
      return new JobGpus(List.of(), config.gpus(), true);
    }
  }

  /**
   * The node's task-manager socket, in a directory of the mom's that others may pass through but
   * not change, so that nobody can put a file of their own in its place. Named after the node where
   * the path fits (several moms may share a job-directory base).
   */
  public static Path socket(MomConfig config) throws IOException {
    Path dir = config.tmpBase().resolve(".tm");
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir);
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    Path socket = dir.resolve(config.name());
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH) {
      return socket;
    }
    Path hashed = dir.resolve(hash(config.name()));
    if (hashed.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
      throw new IOException("the directory " + dir + " is too deep for a Unix socket path");
    }
    return hashed;
  }

  /**
   * Whether a connecting process belongs to the job: it runs as the job's owner and it, or a
   * process it descends from, is in the job script's session or a local task's (MPI launchers start
   * their remote agents in sessions of their own), or it is in the job's cgroup here.
   */
  public static Predicate<PeerCredentials.Peer> admit(
      NodeJob nodeJob, Set<Long> sessions, List<Path> cgroupProcs) {
    return peer -> {
      if (nodeJob.runAs() != null && peer.uid() != nodeJob.runAs().uid()) {
        return false;
      }
      if (cgroupProcs.stream().anyMatch(procs -> ProcessFacts.inCgroup(procs, peer.pid()))) {
        return true;
      }
      long pid = peer.pid();
      for (int depth = 0; depth < MAX_ANCESTRY && pid > 1; depth++) {
        if (sessions.contains(ProcessFacts.session(pid))) {
          return true;
        }
        pid = ProcessFacts.parent(pid);
      }
      return false;
    };
  }

  private static String hash(String name) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
