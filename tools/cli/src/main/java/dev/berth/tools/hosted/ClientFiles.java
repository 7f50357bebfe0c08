package dev.berth.tools.hosted;

import dev.berth.client.LocalFiles;
import dev.berth.proto.LocalFile;
import dev.berth.proto.RunCommand;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Files as the client read them, with the caller's own permissions: the server never opens a path a
 * hosted command names. A file the client did not send ends the run with {@link
 * NeedsInput#file(String)}.
 */
final class ClientFiles implements LocalFiles {
  private final Map<Path, LocalFile> files = new HashMap<>();

  ClientFiles(RunCommand command, Path cwd) {
    for (LocalFile file : command.getFilesList()) {
      files.putIfAbsent(cwd.resolve(file.getPath()).normalize(), file);
    }
  }

  @Override
  public byte[] read(Path file) throws IOException {
    LocalFile sent = files.get(file.normalize());
    if (sent == null) {
      throw NeedsInput.file(file.toString()); // absolute: it means there what it means here
    }
    return switch (sent.getProblem()) {
      case NONE -> sent.getContent().toByteArray();
      case MISSING -> throw new NoSuchFileException(file.toString());
      case DENIED -> throw new AccessDeniedException(file.toString());
      case DIRECTORY -> throw new DirectoryException(file);
      case OTHER, UNRECOGNIZED -> throw new IOException(file + ": " + sent.getReason());
    };
  }
}
