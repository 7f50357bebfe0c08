package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The job's files on the node: a private directory for the user (its TMPDIR, holding the nodefile)
 * under a root-owned base that users cannot write to, and the removal of a tree.
 */
public final class JobFiles {
  private JobFiles() {}

  /**
   * Creates the base directory (the mom's own, 0711) or checks that an existing one is: a base in a
   * shared directory such as /tmp that someone else made first would let them steer the mom's job
   * directories and sockets.
   */
  public static void prepareBase(Path base) throws IOException {
    prepareBase(base, "rwx--x--x");
  }

  /** {@link #prepareBase(Path)} with the mode {@code permissions} ("rwx------"). */
  static void prepareBase(Path base, String permissions) throws IOException {
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
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString(permissions));
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
   * Removes a tree as this process, however deep or wide, and never through a link in it (see
   * {@link TreeRemover}); nothing when there is nothing at {@code root}. The mom itself puts the
   * trees its jobs leave in the {@link Trash}, to be removed off the actors and as their owners;
   * this is for trees of its own and its tests'.
   */
  public static void removeTree(Path root) throws IOException {
    Path absolute = root.toAbsolutePath().normalize();
    if (absolute.getParent() == null) {
      throw new IOException("refusing to remove " + root);
    }
    TreeRemover.Outcome outcome;
    do {
      outcome =
          TreeRemover.remove(
              absolute.getParent(), absolute.getFileName().toString(), -1, -1, TreeRemover.SLICE);
    } while (outcome.state() == TreeRemover.State.MORE);
    if (outcome.state() == TreeRemover.State.FAILED) {
      throw new IOException("cannot remove " + root + ": " + outcome.problem());
    }
  }
}
