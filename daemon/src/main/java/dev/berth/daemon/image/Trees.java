package dev.berth.daemon.image;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/** Removing a file tree of the user's own: links are removed, never followed. */
final class Trees {
  private static final Set<PosixFilePermission> OWNER_ALL =
      EnumSet.of(
          PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE);

  private Trees() {}

  /**
   * Removes {@code path} and, if it is a directory, everything in it; nothing if it is not there.
   * Directories an image made read-only (0555 {@code /usr}, 0000 {@code /root}) are opened to their
   * owner first, which an unprivileged user needs to empty them.
   */
  static void delete(Path path) throws IOException {
    PosixFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return;
    }
    if (attributes.isDirectory()) {
      if (!attributes.permissions().containsAll(OWNER_ALL)) {
        Set<PosixFilePermission> opened = EnumSet.copyOf(OWNER_ALL);
        opened.addAll(attributes.permissions());
        Files.setPosixFilePermissions(path, opened);
      }
      try (DirectoryStream<Path> children = Files.newDirectoryStream(path)) {
        for (Path child : children) {
          delete(child);
        }
      }
    }
    Files.deleteIfExists(path);
  }
}
