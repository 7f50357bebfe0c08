package dev.berth.mom.os;

import dev.berth.mom.os.gpu.DeviceFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The images a node keeps unpacked, one directory per owner ({@code BASE/UID}, theirs alone), where
 * berth-starter unpacks each image once, as its owner, into {@code sha256/HEX} (see
 * berth-container.c). The mom makes the owners' directories and keeps the whole under a size limit,
 * removing the entries used longest ago. An entry in use is never removed: every process that
 * entered it holds a shared lock on {@code HEX.lock} for its life, and the mom removes only what it
 * can lock alone.
 */
public final class ContainerCache {
  private final Path base;
  private final long limitBytes;
  private final Path locks;

  /**
   * How deep an entry is measured: the walk holds a directory open per level, and the owner may
   * have made the entry as deep as they like. What lies deeper is not counted; the owner could as
   * well keep it beside the cache.
   */
  static final int SIZE_DEPTH = 64;

  /** Each entry's size, measured once: an unpacked image does not grow but by its mount points. */
  private final Map<Path, Long> sizes = new ConcurrentHashMap<>();

  /**
   * @param base the cache's directory on this node (made, root's, 0711)
   * @param limitBytes how much the unpacked images of all owners may take
   */
  public ContainerCache(Path base, long limitBytes) {
    this(base, limitBytes, Path.of("/proc/locks"));
  }

  /** With the kernel's list of file locks at {@code locks} (a file of that format, in tests). */
  ContainerCache(Path base, long limitBytes, Path locks) {
    this.base = base;
    this.limitBytes = limitBytes;
    this.locks = locks;
  }

  public Path base() {
    return base;
  }

  /** The owner's directory, made (theirs, 0700) if missing. */
  public Path forOwner(UserInfo owner, int gid) throws IOException {
    JobFiles.prepareBase(base);
    Path dir = base.resolve(Integer.toString(owner.uid()));
    if (Files.isSymbolicLink(dir)) {
      throw new IOException(dir + " is a symbolic link; refusing to use it as a cache");
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      JobFiles.createUserDirectory(dir, owner, gid);
    }
    return dir;
  }

  /** One unpacked image: where, how large, when last entered. */
  record Entry(Path dir, long bytes, long lastUsedMillis) {}

  /**
   * Removes the entries used longest ago while the cache is over its limit, skipping those in use,
   * and what killed unpacks left: each goes to the cache's {@link Trash}, to be removed there off
   * the actors. Returns what it removed.
   */
  public List<Path> evict() throws IOException {
    removeKilledUnpacks();
    List<Entry> entries = entries();
    long total = entries.stream().mapToLong(Entry::bytes).sum();
    List<Path> removed = new ArrayList<>();
    for (Entry e : entries) {
      if (total <= limitBytes) {
        break;
      }
      if (removeUnused(e.dir())) {
        total -= e.bytes();
        removed.add(e.dir());
        sizes.remove(e.dir());
      }
    }
    return removed;
  }

  /**
   * Removes what unpacks that were killed left ({@code HEX.partial}, whose lock no starter holds
   * any more; a starter unpacking holds it): the next use of the image starts afresh anyway.
   */
  private void removeKilledUnpacks() throws IOException {
    if (!Files.isDirectory(base)) {
      return;
    }
    try (DirectoryStream<Path> owners = Files.newDirectoryStream(base)) {
      for (Path owner : owners) {
        Path sha = owner.resolve("sha256");
        if (!Files.isDirectory(sha, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        try (DirectoryStream<Path> partials = Files.newDirectoryStream(sha, "*.partial")) {
          for (Path partial : partials) {
            String hex = partial.getFileName().toString().replace(".partial", "");
            if (hex.matches("[0-9a-f]{64}") && !locked(sha.resolve(hex + ".lock"))) {
              removeIn(partial.getParent(), partial.getFileName());
            }
          }
        }
      }
    }
  }

  /** Every owner's entries, used longest ago first. */
  List<Entry> entries() throws IOException {
    List<Entry> entries = new ArrayList<>();
    if (!Files.isDirectory(base)) {
      return entries;
    }
    try (DirectoryStream<Path> owners = Files.newDirectoryStream(base)) {
      for (Path owner : owners) {
        Path sha = owner.resolve("sha256");
        if (!Files.isDirectory(sha, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(sha)) {
          for (Path dir : dirs) {
            if (dir.getFileName().toString().matches("[0-9a-f]{64}")
                && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
              long used = Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS).toMillis();
              entries.add(new Entry(dir, sizes.computeIfAbsent(dir, ContainerCache::size), used));
            }
          }
        }
      }
    }
    entries.sort(Comparator.comparingLong(Entry::lastUsedMillis));
    return entries;
  }

  private static long size(Path dir) {
    try (Stream<Path> files = Files.walk(dir, SIZE_DEPTH)) {
      return files
          .mapToLong(
              f -> {
                try {
                  BasicFileAttributes a =
                      Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                  return a.isRegularFile() ? a.size() : 0; // what the image holds
                } catch (IOException gone) {
                  return 0;
                }
              })
          .sum();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0; // being removed
    }
  }

  /**
   * Removes an entry no process holds. Everything below an owner's directory is the owner's to
   * change, so root opens none of it by path: whether a starter holds the entry's lock is read from
   * /proc/locks (the lock file could be a FIFO that an open would hang on), and the entry is
   * renamed and removed through its directory's descriptor, so no symbolic link steers either.
   */
  private boolean removeUnused(Path dir) throws IOException {
    Path lockFile = dir.resolveSibling(dir.getFileName() + ".lock");
    if (locked(lockFile)) {
      return false;
    }
    removeIn(dir.getParent(), dir.getFileName());
    return true;
  }

  /**
   * Moves {@code name} in {@code parent} (an owner's sha256 directory) into the cache's {@link
   * Trash}, through descriptors: the owner's directory is opened (its name is root's, in the
   * cache's base), its {@code sha256} below it without following a link, and the entry renamed from
   * there. The trash removes it as the owner (the user id the directory is named for), whatever the
   * owner put at that name.
   */
  private void removeIn(Path parent, Path name) throws IOException {
    Path ownerDir = parent.getParent();
    int uid;
    try {
      uid = Integer.parseInt(ownerDir.getFileName().toString());
    } catch (NumberFormatException e) {
      throw new IOException(ownerDir + " is not an owner's directory (named for a user id)");
    }
    int gid = (Integer) Files.getAttribute(ownerDir, "unix:gid", LinkOption.NOFOLLOW_LINKS);
    try (DirectoryStream<Path> owner = Files.newDirectoryStream(ownerDir)) {
      if (!(owner instanceof SecureDirectoryStream<Path> opened)) {
        throw new IOException("this platform cannot remove " + name + " safely (no openat)");
      }
      try (SecureDirectoryStream<Path> secure =
          opened.newDirectoryStream(parent.getFileName(), LinkOption.NOFOLLOW_LINKS)) {
        // a starter that comes now finds the entry gone and unpacks the image again
        Trash.in(base).discard(secure, name, uid, gid);
      }
    }
  }

  /** Whether a process holds a lock on {@code file} (which starters make and lock, never root). */
  private boolean locked(Path file) throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException none) {
      return false; // no starter made it, so none uses the entry
    }
    if (!a.isRegularFile()) {
      return false; // not a starter's: the owner put something else there
    }
    long inode = (Long) Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
    DeviceFiles.Numbers dev =
        DeviceFiles.decode((Long) Files.getAttribute(file, "unix:dev", LinkOption.NOFOLLOW_LINKS));
    String id = String.format(" %02x:%02x:%d ", dev.major(), dev.minor(), inode);
    return Files.readAllLines(locks).stream().anyMatch(l -> l.contains(id));
  }

  /** For logs. */
  public String describe() {
    return "container cache " + base + " (at most " + (limitBytes >> 20) + " MiB)";
  }
}
