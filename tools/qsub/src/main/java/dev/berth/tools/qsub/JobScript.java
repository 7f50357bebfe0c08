package dev.berth.tools.qsub;

import dev.berth.client.Invocation;
import dev.berth.client.LocalFiles;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A job script as read: its bytes, scanned for directives and, for a batch job, sent to the server
 * exactly as they were; the name a job gets when no {@code -N} is given (the file's base name, or
 * {@code STDIN}); and for {@code -x}, the file its command named, or null.
 */
record JobScript(String defaultName, byte[] bytes, Path commandFile) {
  static final String STDIN_NAME = "STDIN";

  JobScript(String defaultName, byte[] bytes) {
    this(defaultName, bytes, null);
  }

  /**
   * The script of {@code cmd}. A batch job's comes from the operand, else from stdin. An
   * interactive job's terminal is its script: a file operand is read only for its directives, and
   * without one nothing is read (stdin stays the session's). With {@code -x} the operand is a
   * command, read for directives only when it names a readable text file.
   */
  static JobScript read(QsubCommandLine cmd, Invocation inv) throws QsubException {
    Optional<String> path = cmd.scriptPath();
    if (!cmd.interactive()) {
      return read(path, inv);
    }
    if (path.isEmpty()) {
      return new JobScript(STDIN_NAME, new byte[0]);
    }
    return cmd.runsCommand() ? command(path.get(), inv) : read(path, inv);
  }

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

  /**
   * {@code -x COMMAND}: a readable file of that name is read for its directives (a binary, such as
   * {@code /bin/hostname}, has none); anything else is only a command, named after its first word.
   */
  private static JobScript command(String command, Invocation inv) {
    Path file;
    byte[] bytes;
    try {
      file = inv.cwd().resolve(command);
      bytes = inv.origin().files().read(file);
    } catch (IOException | InvalidPathException e) {
      return new JobScript(commandName(command), new byte[0]);
    }
    String name = file.getFileName().toString();
    Path absolute = file.toAbsolutePath().normalize();
    for (byte b : bytes) {
      if (b == 0) {
        return new JobScript(name, new byte[0], absolute);
      }
    }
    return new JobScript(name, bytes, absolute);
  }

  /** The base name of the command's first word ({@code /bin/ls -l} gives {@code ls}). */
  static String commandName(String command) {
    String[] words = command.strip().split("\\s+", 2);
    String word = words[0];
    String base = word.substring(word.lastIndexOf('/') + 1);
    return base.isEmpty() ? STDIN_NAME : base;
  }
}
