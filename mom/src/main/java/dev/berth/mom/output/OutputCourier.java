package dev.berth.mom.output;

import dev.berth.mom.os.UserInfo;
import java.io.IOException;
import java.nio.file.Path;

/** Takes a job's spooled stream to the host its path names. */
public interface OutputCourier {
  /**
   * Delivers {@code file}, read as {@code owner} (never as root), as stream {@code stream} ("o" or
   * "e") of job {@code jobId} to {@code host}; returns where it was written there.
   *
   * @param owner the job's owner, or null when the mom runs jobs as itself
   */
  String deliver(String host, String jobId, String stream, Path file, UserInfo owner, int gid)
      throws IOException;
}
