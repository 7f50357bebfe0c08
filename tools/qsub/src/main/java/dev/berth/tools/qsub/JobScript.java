package dev.berth.tools.qsub;

import dev.berth.client.Invocation;
import dev.berth.client.LocalFiles;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A job script as read: its bytes, sent to the server exactly as they were, and the name a job gets
 * when no {@code -N} is given (the file's base name, or {@code STDIN}).
 */
record JobScript(String defaultName, byte[] bytes) {
  static final String STDIN_NAME = "STDIN";

  /** Reads the script from {@code path} (relative to the invocation's cwd), else from stdin. */
  static JobScript read(Optional<String> path, Invocation inv) throws QsubException {
    if (path.isEmpty()) {
      try {
        return new JobScript(STDIN_NAME, inv.in().readAllBytes());
      } catch (IOException e) {
        throw new QsubException("cannot read the job script from standard input: " + e);
      }
    }
    Path file = inv.cwd().resolve(path.get());
    try {
      return new JobScript(file.getFileName().toString(), inv.origin().files().read(file));
    } catch (LocalFiles.DirectoryException e) {
      throw new QsubException("job script " + path.get() + " is a directory");
    } catch (NoSuchFileException e) {
      throw new QsubException("job script " + path.get() + " does not exist");
    } catch (AccessDeniedException e) {
      throw new QsubException("job script " + path.get() + " cannot be read (permission denied)");
    } catch (IOException e) {
      throw new QsubException("cannot read job script " + path.get() + ": " + e.getMessage());
    }
  }
}
