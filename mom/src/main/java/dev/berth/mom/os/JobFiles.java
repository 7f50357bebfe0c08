package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * The job's files on the node: a private directory for the user (its TMPDIR, holding the nodefile)
 * under a root-owned base that users cannot write to, and its safe removal (symbolic links the user
 * left there are removed, never followed).
 */
public final class JobFiles {
  private JobFiles() {}

  /**
   * Creates the base directory (the mom's own, 0711) or checks that an existing one is: a base in a
   * shared directory such as /tmp that someone else made first would let them steer the mom's job
   * directories and sockets.
   */
  public static void prepareBase(Path base) throws IOException {
    Files.createDirectories(base);
    if (Files.isSymbolicLink(base)) {
      throw new IOException(base + " is a symbolic link; refusing to use it for job files");
    }
    String owner = Files.getOwner(base, LinkOption.NOFOLLOW_LINKS).getName();
    String self = System.getProperty("user.name");
    if (!owner.equals(self)) {
      throw new IOException(
          base
              + " belongs to "
              + owner
              + ", not to "
              + self
              + "; refusing to use it for job files");
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

  /**
   * Writes a new file the user may read (not write), owned by the mom, in a directory the user may
   * own: it fails if anything, a symbolic link included, is already at that name.
   */
  public static void writeReadable(Path file, List<String> lines) throws IOException {
    try (var out =
        Files.newByteChannel(
            file,
            java.util.Set.<java.nio.file.OpenOption>of(
                java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")))) {
      out.write(
          java.nio.ByteBuffer.wrap(
              (String.join("\n", lines) + (lines.isEmpty() ? "" : "\n"))
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }

  private static void chown(Path path, UserInfo user, int gid) throws IOException {
    if (user == null) {
      return;
    }
    Files.setAttribute(path, "unix:uid", user.uid(), LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Removes a tree that its user could be changing at the same time (the job's TMPDIR): entries are
   * opened relative to their already-open parent directory, never by path, so a directory swapped
   * for a symbolic link mid-way cannot steer root's deletions elsewhere.
   */
  public static void removeTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      try (DirectoryStream<Path> stream = Files.newDirectoryStream(root)) {
        if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
          throw new IOException("this platform cannot remove " + root + " safely (no openat)");
        }
        clear(secure);
      }
    }
    Files.deleteIfExists(root);
  }

  /**
   * Removes {@code name} in an already-open directory, whatever it is (a tree as {@link
   * #removeTree(Path)} removes one, a file, a link); nothing when it is not there.
   */
  public static void removeTree(SecureDirectoryStream<Path> dir, Path name) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes =
          dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
              .readAttributes();
    } catch (NoSuchFileException e) {
      return;
    }
    if (attributes.isDirectory()) {
      try (SecureDirectoryStream<Path> sub =
          dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
        clear(sub);
      }
      dir.deleteDirectory(name);
    } else {
      dir.deleteFile(name);
    }
  }

  private static void clear(SecureDirectoryStream<Path> dir) throws IOException {
    List<Path> names = new ArrayList<>();
    for (Path entry : dir) {
      names.add(entry.getFileName());
    }
    for (Path name : names) {
      removeTree(dir, name);
    }
  }
}
