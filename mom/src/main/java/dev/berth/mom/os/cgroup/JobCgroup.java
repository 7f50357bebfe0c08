package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** One job's cgroup on this node, in every hierarchy its driver uses. */
public interface JobCgroup {
  String jobId();

  /**
   * The cgroup.procs files a process must write its pid into to join the job (one per hierarchy,
   * co-mounted controllers counted once). berth-starter's {@code --cgroup} takes these.
   */
  List<Path> procsFiles();

  /**
   * Denies the job's processes any access to {@code devices} (other jobs' GPUs), whatever path they
   * open them by; call before any process joins, since the kernel checks at open only. The job
   * keeps every other device its parent allows. Idempotent.
   *
   * @throws IOException where this host's cgroups cannot restrict devices, naming why
   */
  void denyDevices(List<Device> devices) throws IOException;

  /** What the job used so far; read it before {@link #remove}. */
  CgroupUsage usage() throws IOException;

  /** Whether no process is left in the job's cgroup (true when it does not exist). */
  boolean empty() throws IOException;

  /**
   * Whether {@link #freeze} can hold the job's processes here: cgroup v1 with a freezer hierarchy,
   * cgroup v2 from Linux 5.2 on (cgroup.freeze).
   */
  boolean canFreeze();

  /**
   * Freezes every process in the cgroup, those it forks or that join it later included, for the
   * job's suspension, and waits until the kernel reports all of them frozen or {@code wait} has
   * passed (v1 reads FREEZING meanwhile). Returns whether all are frozen; false also where the
   * cgroup cannot freeze. Idempotent: asking again goes on waiting.
   */
  boolean freeze(Duration wait) throws IOException;

  /** Lets the processes of a frozen cgroup run again; idempotent. */
  void thaw() throws IOException;

  /**
   * Kills every process in the cgroup (v1: freeze, SIGKILL each pid, thaw; v2: cgroup.kill) and
   * waits until it is empty or the timeout has passed; returns whether it is empty. Processes that
   * started their own session or process group are killed too, and so are those of a frozen cgroup.
   */
  boolean killAll(Duration timeout) throws IOException;

  /**
   * Removes the job's directories in every hierarchy (child cgroups first), retrying while the
   * kernel still reports them busy; idempotent.
   *
   * @throws IOException if a directory is still busy when the timeout has passed
   */
  void remove(Duration timeout) throws IOException;
}
