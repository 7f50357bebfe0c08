package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Path;

/**
 * What the drivers ask of the kernel besides reading files: the seam that lets the unit tests run
 * the drivers on a plain directory tree (where a new directory has no control files until the
 * test's kernel makes them, and nothing refuses a write).
 */
interface Kernel {
  /** Writes {@code value} to an existing control file. */
  void write(Path file, String value) throws IOException;

  /** Makes a cgroup directory; nothing happens if it exists. */
  void mkdir(Path dir) throws IOException;

  /**
   * Removes an empty cgroup directory.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws java.nio.file.FileSystemException if the kernel reports it busy
   */
  void rmdir(Path dir) throws IOException;

  /** Sends SIGKILL to {@code pid} if it still exists. */
  void kill(long pid);

  Kernel LINUX = new LinuxKernel();
}
