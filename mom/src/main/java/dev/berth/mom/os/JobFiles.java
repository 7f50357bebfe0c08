package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The job's files on the node: a private directory for the user (its TMPDIR, holding the nodefile)
 * under a root-owned base that users cannot write to, and its safe removal (symbolic links the user
 * left there are removed, never followed).
 */
public final class JobFiles {
  private JobFiles() {}

  /** Creates the base directory (root-owned, 0711) or checks an existing one is safe. */
  public static void prepareBase(Path base) throws IOException {
    Files.createDirectories(base);
    if (Files.isSymbolicLink(base)) {
      throw new IOException(base + " is a symbolic link; refusing to use it for job files");
    }
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx--x--x"));
  }

  /** A new directory owned by the user, mode 0700; fails if the path exists. */
  public static Path createUserDirectory(Path dir, UserInfo user, int gid) throws IOException {
    Files.createDirectory(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    chown(dir, user, gid);
    return dir;
  }

  /** Writes a file the user may read (not write), owned by root. */
  public static void writeReadable(Path file, List<String> lines) throws IOException {
    Files.write(file, lines);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
  }

  private static void chown(Path path, UserInfo user, int gid) throws IOException {
    if (user == null) {
      return;
    }
    Files.setAttribute(path, "unix:uid", user.uid(), LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
  }

  /** Removes a tree without following symbolic links. */
  public static void removeTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
