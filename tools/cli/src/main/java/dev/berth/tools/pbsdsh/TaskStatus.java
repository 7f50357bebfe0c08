package dev.berth.tools.pbsdsh;

import dev.berth.proto.TmExited;

/** A task's exit status as a shell reports it. */
public final class TaskStatus {
  /** The status of a task that could not start, as a shell's "command not found". */
  public static final int NOT_STARTED = 127;

  private TaskStatus() {}

  /**
   * {@link TmExited#getExitStatus()} as an exit code: 0..255 as is, Torque's 256 + signal as 128 +
   * signal (what a shell shows), -1 (could not start) as {@link #NOT_STARTED}.
   */
  public static int normalise(int exitStatus) {
    if (exitStatus < 0) {
      return NOT_STARTED;
    }
    if (exitStatus < 256) {
      return exitStatus;
    }
    return Math.min(255, 128 + (exitStatus - 256));
  }
}
