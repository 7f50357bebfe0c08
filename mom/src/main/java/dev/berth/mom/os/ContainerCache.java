package dev.berth.mom.os;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

  /** Each entry's size, measured once: an unpacked image does not grow but by its mount points. */
  private final Map<Path, Long> sizes = new ConcurrentHashMap<>();

  /**
   * @param base the cache's directory on this node (made, root's, 0711)
   * @param limitBytes how much the unpacked images of all owners may take
   */
  public ContainerCache(Path base, long limitBytes) {
    this.base = base;
    this.limitBytes = limitBytes;
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
   * Removes the entries used longest ago while the cache is over its limit, skipping those in use;
   * returns what it removed.
   */
  public List<Path> evict() throws IOException {
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
    try (Stream<Path> files = Files.walk(dir)) {
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
   * Removes an entry no process holds: under its lock, taken without waiting, it is renamed out of
   * the starters' way and then removed as a tree its owner may be changing.
   */
  private static boolean removeUnused(Path dir) throws IOException {
    Path lockFile = dir.resolveSibling(dir.getFileName() + ".lock");
    Path doomed = dir.resolveSibling(dir.getFileName() + ".evicted");
    if (!Files.exists(lockFile, LinkOption.NOFOLLOW_LINKS)) {
      // no starter made it, so none uses the entry; one that comes now finds it gone and unpacks
      JobFiles.removeTree(doomed);
      Files.move(dir, doomed);
    } else {
      // opened, never made: a lock file of root's would shut the owner's starters out
      try (FileChannel lock =
          FileChannel.open(lockFile, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        FileLock held = lock.tryLock();
        if (held == null) {
          return false;
        }
        JobFiles.removeTree(doomed);
        Files.move(dir, doomed);
      }
    }
    JobFiles.removeTree(doomed);
    return true;
  }

  /** For logs. */
  public String describe() {
    return "container cache " + base + " (at most " + (limitBytes >> 20) + " MiB)";
  }
}
