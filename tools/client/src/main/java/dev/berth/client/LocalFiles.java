package dev.berth.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** How a command reads a file it was given (qsub's job script). */
@FunctionalInterface
public interface LocalFiles {
  /** Reads with this process's own permissions. */
  LocalFiles PROCESS =
      file -> {
        if (Files.isDirectory(file)) {
          throw new DirectoryException(file);
        }
        return Files.readAllBytes(file);
      };

  /**
   * The whole file.
   *
   * @throws java.nio.file.NoSuchFileException when it does not exist
   * @throws java.nio.file.AccessDeniedException when the caller may not read it
   * @throws DirectoryException when it is a directory
   */
  byte[] read(Path file) throws IOException;

  /** The path names a directory, not a file. */
  final class DirectoryException extends IOException {
    private static final long serialVersionUID = 1L;

    public DirectoryException(Path file) {
      super(file + " is a directory");
    }
  }
}
