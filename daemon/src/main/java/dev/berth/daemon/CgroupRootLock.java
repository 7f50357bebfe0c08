package dev.berth.daemon;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Set;

/**
 * One mom per cgroup root on a host, whatever home it belongs to: a mom that starts removes the job
 * cgroups under its root that it has no record of, which would be another installation's running
 * jobs if two shared it. The lock is a file in /run/berth held until the process ends.
 */
final class CgroupRootLock {
  private CgroupRootLock() {}

  static final Path DIR = Path.of("/run/berth/cgroup-locks");

  /** Holds the lock of {@code level} under {@code parent} for the rest of this process's life. */
  static void hold(String level, String parent) throws IOException {
    Files.createDirectories(
        DIR, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    String owner = Files.getOwner(DIR, LinkOption.NOFOLLOW_LINKS).getName();
    if (!owner.equals(System.getProperty("user.name"))) {
      throw new IOException(DIR + " belongs to " + owner + "; refusing to take cgroup locks there");
    }
    String key = (parent == null ? "" : parent) + "|" + level;
    Path file = DIR.resolve(name(key));
    FileChannel channel =
        FileChannel.open(
            file,
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      lock = null; // this process holds it already, for another mom of its own
    }
    if (lock == null) {
      channel.close();
      throw new IllegalArgumentException(
          "the cgroup root "
              + level
              + " is in use by another mom on this host; give this one its own --cgroup-root");
    }
    HELD.add(channel); // an unreachable channel would be closed, and its lock released
  }

  private static final java.util.List<FileChannel> HELD =
      java.util.Collections.synchronizedList(new java.util.ArrayList<>());

  private static String name(String key) {
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(key.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16) + ".lock";
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
