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

  /** What the job used so far; read it before {@link #remove}. */
  Usage usage() throws IOException;

  /** Whether no process is left in the job's cgroup (true when it does not exist). */
  boolean empty() throws IOException;

  /**
   * Kills every process in the cgroup (v1: freeze, SIGKILL each pid, thaw; v2: cgroup.kill) and
   * waits until it is empty or the timeout has passed; returns whether it is empty. Processes that
   * started their own session or process group are killed too.
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
