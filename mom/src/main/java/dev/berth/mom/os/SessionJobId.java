package dev.berth.mom.os;

import java.nio.file.Path;

/**
 * The job id a started process's new session is tagged with, in {@code file}: where a parallel file
 * system keeps a job id per session (Lustre's /sys/fs/lustre/jobid_this_session).
 */
public record SessionJobId(Path file, String jobId) {
  /** The tag for {@code jobId} where {@code file} is configured; null where none is. */
  public static SessionJobId of(Path file, String jobId) {
    return file == null ? null : new SessionJobId(file, jobId);
  }
}
