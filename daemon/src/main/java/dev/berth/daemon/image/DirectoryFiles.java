package dev.berth.daemon.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The files of an OCI layout directory. */
final class DirectoryFiles implements ImageFiles {
  private final Path root;

  DirectoryFiles(Path root) {
    this.root = root;
  }

  private Path resolve(String path) {
    return root.resolve(EntryPath.join(EntryPath.components(path)));
  }

  @Override
  public boolean has(String path) {
    return Files.isRegularFile(resolve(path));
  }

  @Override
  public InputStream open(String path) throws IOException {
    Path file = resolve(path);
    if (!Files.isRegularFile(file)) {
      // A FIFO or device named like a blob would block or never end.
      throw new IOException(file + ": no such regular file");
    }
    return Files.newInputStream(file);
  }

  @Override
  public String describe(String path) {
    return resolve(path).toString();
  }

  @Override
  public void close() {}
}
