package dev.berth.daemon.image;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A root file system being built in a directory from names that come from anywhere. Each path is
 * reached from the root one component at a time, and a component that is a symbolic link or not a
 * directory ends the walk with a refusal: an image's {@code etc -> /etc} followed by {@code
 * etc/passwd} cannot write outside the tree. A new entry replaces what its path held (a directory
 * entry keeps an existing directory and its contents, as tar does).
 *
 * <p>The user building it must be able to read back all of it (mksquashfs runs as them too), so
 * directories always keep their owner's rwx and files their owner's r; the image's files all belong
 * to root anyway, whose access these bits do not limit.
 */
final class RootTree {
  static final int OWNER_DIRECTORY = 0700;
  static final int OWNER_FILE = 0400;

  private final Path root;

  /** A parent last found to be a real directory; forgotten whenever something is removed. */
  private String checkedParent;

  /** The times of directories, set last: every entry made in a directory changes its time. */
  private final Map<String, FileTime> directoryTimes = new TreeMap<>();

  RootTree(Path root) {
    this.root = root;
  }

  /**
   * The directory {@code path}, kept if it is one, its mode (with the owner's rwx) and time set.
   */
  void directory(List<String> path, int mode, FileTime modified) throws IOException {
    Path at = place(path);
    PosixFileAttributes existing = lstat(at);
    if (existing != null && !existing.isDirectory()) {
      remove(at);
    }
    if (existing == null || !existing.isDirectory()) {
      Files.createDirectory(at);
    }
    setMode(at, mode | OWNER_DIRECTORY);
    if (modified != null) {
      directoryTimes.put(EntryPath.join(path), modified);
    }
  }

  /** The regular file {@code path} with {@code content} (read to its end), replacing any. */
  void file(List<String> path, int mode, InputStream content, FileTime modified)
      throws IOException {
    Path at = place(path);
    remove(at);
    // CREATE_NEW fails on anything there, a dangling link included: nothing is written through one.
    try (OutputStream out =
        Files.newOutputStream(
            at,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS)) {
      content.transferTo(out);
    }
    setMode(at, mode | OWNER_FILE);
    if (modified != null) {
      Files.setLastModifiedTime(at, modified);
    }
  }

  /** The symbolic link {@code path} to {@code target}, which is stored, not resolved. */
  void symlink(List<String> path, String target) throws IOException {
    if (target.isEmpty()) {
      throw new IOException("symbolic link with an empty target");
    }
    Path at = place(path);
    remove(at);
    Files.createSymbolicLink(at, Path.of(target));
  }

  /**
   * The hard link {@code path} to the entry {@code target} already in the tree, which must not be a
   * directory (a link to a symbolic link links the symbolic link itself).
   */
  void hardLink(List<String> path, List<String> target) throws IOException {
    Path existing = locate(target);
    PosixFileAttributes attributes = existing == null ? null : lstat(existing);
    if (attributes == null) {
      throw new IOException(
          "hard link to '"
              + EntryPath.show(EntryPath.join(target))
              + "', which is not in the image");
    }
    if (attributes.isDirectory()) {
      throw new IOException(
          "hard link to the directory '" + EntryPath.show(EntryPath.join(target)) + "' refused");
    }
    Path at = place(path);
    if (at.equals(existing)) {
      return; // a link to itself: it is there
    }
    remove(at);
    Files.createLink(at, existing);
  }

  /** Removes whatever {@code path} holds, directories with their contents. */
  void remove(List<String> path) throws IOException {
    Path at = locate(path);
    if (at != null && !path.isEmpty()) {
      remove(at);
    }
  }

  /**
   * The names in directory {@code path}; none when it is missing or not a directory (a link to one
   * included).
   */
  List<String> children(List<String> path) throws IOException {
    Path at = locate(path);
    List<String> names = new ArrayList<>();
    if (at == null || !isDirectory(lstat(at))) {
      return names;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(at)) {
      for (Path entry : entries) {
        names.add(entry.getFileName().toString());
      }
    }
    return names;
  }

  /** Whether {@code path} is a real directory (not a link to one). */
  boolean isDirectory(List<String> path) throws IOException {
    Path at = locate(path);
    return at != null && isDirectory(lstat(at));
  }

  /** What {@code path} holds, or null when it or one of its parents is missing. */
  PosixFileAttributes attributes(List<String> path) throws IOException {
    Path at = locate(path);
    return at == null ? null : lstat(at);
  }

  /** Sets the directories' times recorded by {@link #directory}, once nothing more is added. */
  void finish() throws IOException {
    for (Map.Entry<String, FileTime> e : directoryTimes.entrySet()) {
      List<String> path = EntryPath.components(e.getKey());
      Path at = locate(path);
      if (at != null && isDirectory(lstat(at))) {
        Files.getFileAttributeView(at, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
            .setTimes(e.getValue(), null, null);
      }
    }
    directoryTimes.clear();
  }

  /**
   * The path for a new entry at {@code path}: missing parents are made (0755), and a parent that is
   * a link or not a directory is refused.
   */
  private Path place(List<String> path) throws IOException {
    if (path.isEmpty()) {
      throw new IOException("the root itself cannot be replaced");
    }
    return walk(path, true);
  }

  /**
   * The path of an existing entry's place, or null when a parent is missing or not a directory: in
   * a tree whose links are never followed, nothing lies under a link.
   */
  private Path locate(List<String> path) throws IOException {
    return path.isEmpty() ? root : walk(path, false);
  }

  private Path walk(List<String> path, boolean make) throws IOException {
    List<String> parents = path.subList(0, path.size() - 1);
    String parentName = EntryPath.join(parents);
    Path at = root;
    if (parentName.equals(checkedParent)) {
      at = root.resolve(parentName);
    } else {
      for (int i = 0; i < parents.size(); i++) {
        at = at.resolve(parents.get(i));
        PosixFileAttributes attributes = lstat(at);
        if (attributes == null) {
          if (!make) {
            return null;
          }
          Files.createDirectory(at);
          setMode(at, 0755);
        } else if (!attributes.isDirectory()) {
          if (!make) {
            return null;
          }
          String parent = EntryPath.show(EntryPath.join(parents.subList(0, i + 1)));
          throw new IOException(
              "'"
                  + EntryPath.show(EntryPath.join(path))
                  + "' lies under '"
                  + parent
                  + "', which is "
                  + (attributes.isSymbolicLink()
                      ? "a symbolic link (never followed here)"
                      : "not a directory"));
        }
      }
      checkedParent = parentName;
    }
    return at.resolve(path.get(path.size() - 1));
  }

  private void remove(Path at) throws IOException {
    if (lstat(at) != null) {
      checkedParent = null;
      Trees.delete(at);
    }
  }

  private static boolean isDirectory(PosixFileAttributes attributes) {
    return attributes != null && attributes.isDirectory();
  }

  private static PosixFileAttributes lstat(Path at) throws IOException {
    try {
      return Files.readAttributes(at, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static void setMode(Path at, int mode) throws IOException {
    // "unix:mode" keeps the setuid, setgid and sticky bits, which POSIX permission sets drop.
    Files.setAttribute(at, "unix:mode", mode & 07777);
  }
}
