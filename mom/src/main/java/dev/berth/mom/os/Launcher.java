package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** Starts job processes through the starter and signals them. */
public interface Launcher {
  /** Starts the process; the returned handle's pid is also the job's session id. */
  JobProcess start(StartSpec spec) throws IOException;

  /**
   * Starts a task whose stdin, stdout and stderr are pipes to the mom where the spec names no file
   * for them; the starter's own messages go to the task's stderr, its status to the status file.
   */
  TaskProcess startPiped(StartSpec spec) throws IOException;

  /** Finds a starter that is still running after a mom restart. */
  Optional<JobProcess> reattach(long pid, long identity, long launchedMillis);

  /**
   * Sends {@code signal} to every process of the job: the job's process group and every process in
   * the job's session, except the starter itself (it must live to record the exit status).
   */
  void signalJob(long sessionId, int signal);

  /** Whether any process of the job other than its starter is still alive. */
  boolean anyAlive(long sessionId);

  /**
   * The site's script {@code name} (a prologue or epilogue) in {@code directory}, if there is one
   * that may run as root or, {@code forOwner}, as the job's owner: only one that root alone could
   * have written ({@link HookFiles}).
   *
   * @throws HookFiles.Refused when it is there but must not run
   */
  default Optional<Path> siteScript(Path directory, String name, boolean forOwner)
      throws HookFiles.Refused {
    return HookFiles.find(directory, name, forOwner);
  }
}
