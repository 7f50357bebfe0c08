package dev.berth.daemon.image;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * A look through a root file system directory before mksquashfs stores it as it is: it counts
 * entries and bytes against the limits, finds what the image leaves out (device nodes, FIFOs and
 * sockets, and everything under {@code /dev}, as a layered import does), and finds what mksquashfs
 * could not read as this user, so that the import fails with a clear message up front.
 */
final class DirectoryScan {
  private DirectoryScan() {}

  /** The paths, relative to {@code root}, that the image leaves out. */
  static List<String> excluded(Path root, UnpackLimits limits) throws IOException {
    List<String> excluded = new ArrayList<>();
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes)
              throws IOException {
            visit(dir, attributes);
            if (!dir.equals(root) && root.relativize(dir).toString().equals("dev")) {
              try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                for (Path child : children) {
                  exclude(child);
                }
              }
              return FileVisitResult.SKIP_SUBTREE;
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            visit(file, attributes);
            if (attributes.isOther()) {
              exclude(file);
            } else if (attributes.isRegularFile()) {
              limits.bytes(attributes.size());
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path path, IOException e) throws IOException {
            throw new IOException(path + " cannot be read, so it cannot go in the image: " + e, e);
          }

          private void visit(Path path, BasicFileAttributes attributes) throws IOException {
            if (Thread.currentThread().isInterrupted()) {
              throw new InterruptedIOException("stopped");
            }
            limits.entry();
            boolean readable =
                attributes.isSymbolicLink()
                    || attributes.isOther()
                    || (Files.isReadable(path)
                        && (!attributes.isDirectory() || Files.isExecutable(path)));
            if (!readable) {
              throw new IOException(path + " is not readable by you, so it cannot go in the image");
            }
          }

          private void exclude(Path path) throws IOException {
            String relative = root.relativize(path).toString();
            if (relative.indexOf('\n') >= 0) {
              throw new IOException(
                  EntryPath.show(path.toString()) + ": a name with a newline cannot be left out");
            }
            excluded.add(relative);
          }
        });
    return excluded;
  }
}
