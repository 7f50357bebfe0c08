package dev.berth.daemon.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The paths a container's starter mounts over, which a read-only image must already have since
 * nothing can be made in it: the directories for {@code /dev}, {@code /proc} and {@code /sys},
 * tmpfs on {@code /tmp} and {@code /run}, the job's directory on {@code /workspace}, and the files
 * the job's own {@code /etc/hosts} and {@code /etc/resolv.conf} are bound onto (without them an MPI
 * program looks {@code localhost} up in DNS).
 */
final class MountPoints {
  /** A directory to have, and its mode when the image lacks it. */
  record Directory(String path, int mode) {}

  static final List<Directory> DIRECTORIES =
      List.of(
          new Directory("dev", 0755),
          new Directory("proc", 0555),
          new Directory("sys", 0555),
          new Directory("tmp", 01777),
          new Directory("run", 0755),
          new Directory("workspace", 0755));

  static final List<String> FILES = List.of("etc/hosts", "etc/resolv.conf");

  private MountPoints() {}

  /**
   * Makes the missing ones in a staged tree. A bind target that is a link (a resolv.conf pointing
   * into systemd's /run) is replaced by an empty file, since a bind would follow it to nothing.
   */
  static void ensure(RootTree tree, Consumer<String> warn) throws IOException {
    for (Directory d : DIRECTORIES) {
      List<String> path = List.of(d.path());
      PosixFileAttributes existing = tree.attributes(path);
      if (existing == null) {
        tree.directory(path, d.mode(), null);
      } else if (!existing.isDirectory()) {
        warn.accept("the image's /" + d.path() + " is not a directory; mounts on it will fail");
      }
    }
    for (String file : FILES) {
      List<String> path = EntryPath.components(file);
      PosixFileAttributes existing = tree.attributes(path);
      if (existing == null || !existing.isRegularFile()) {
        if (existing != null) {
          warn.accept("the image's /" + file + " is not a regular file: replaced by an empty one");
        }
        tree.file(path, 0644, InputStream.nullInputStream(), null);
      }
    }
  }

  /**
   * mksquashfs pseudo definitions that add what the root file system directory {@code root} lacks;
   * what is there but is not a directory or file is reported to {@code warn}.
   */
  static List<String> pseudoDefinitions(Path root, Consumer<String> warn) throws IOException {
    List<String> definitions = new ArrayList<>();
    for (Directory d : DIRECTORIES) {
      BasicFileAttributes existing = lstat(root.resolve(d.path()));
      if (existing == null) {
        definitions.add(d.path() + " d " + Integer.toOctalString(d.mode()) + " 0 0");
      } else if (!existing.isDirectory()) {
        warn.accept(root.resolve(d.path()) + " is not a directory; mounts on it will fail");
      }
    }
    BasicFileAttributes etc = lstat(root.resolve("etc"));
    if (etc == null) {
      definitions.add("etc d 755 0 0");
    } else if (!etc.isDirectory()) {
      warn.accept(root.resolve("etc") + " is not a directory; no /etc/hosts can be added");
      return definitions;
    }
    for (String file : FILES) {
      BasicFileAttributes existing = etc == null ? null : lstat(root.resolve(file));
      if (existing == null) {
        // A pseudo file's content is what its command prints: nothing.
        definitions.add(file + " f 644 0 0 true");
      } else if (!existing.isRegularFile()) {
        warn.accept(root.resolve(file) + " is not a regular file; binds onto it will fail");
      }
    }
    return definitions;
  }

  private static BasicFileAttributes lstat(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
