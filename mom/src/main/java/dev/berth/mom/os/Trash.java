package dev.berth.mom.os;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A directory of the mom's own ({@code BASE/.trash}, 0700) that the trees jobs leave in {@code
 * BASE} are moved to — a rename, at once, whatever the tree holds — to be removed later, off the
 * actors and as their owners ({@link TreeRemover}). A tree in the trash is out of its owner's reach
 * by path, and its name in {@code BASE} (a job id) is free again at once for a job run again. Each
 * entry's name says whose it is ({@code UID.GID.NAME.N}), so that a mom that restarts removes what
 * it finds there as the right user.
 */
public final class Trash {
  /** The trash's name in its base; no job id or user id starts with a dot. */
  public static final String NAME = ".trash";

  private static final AtomicLong NAMES = new AtomicLong(System.currentTimeMillis());

  private final Path dir;

  private Trash(Path base) {
    this.dir = base.resolve(NAME);
  }

  /** The trash of {@code base}, a directory only the mom may write to; made when first used. */
  public static Trash in(Path base) {
    return new Trash(base);
  }

  public Path dir() {
    return dir;
  }

  /** A tree in the trash: its name there, and the user and group it is removed as (-1: the mom). */
  public record Entry(String name, int uid, int gid) {}

  /**
   * Moves {@code tree} into the trash, to be removed as the user and group that own it. Only for a
   * tree whose name is in a directory that the mom alone may write to, below this trash's base:
   * there the owner cannot have put someone else's directory in its place. Returns false when there
   * was nothing at {@code tree}.
   */
  public boolean discard(Path tree) throws IOException {
    int uid;
    int gid;
    try {
      uid = (Integer) Files.getAttribute(tree, "unix:uid", LinkOption.NOFOLLOW_LINKS);
      gid = (Integer) Files.getAttribute(tree, "unix:gid", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException gone) {
      return false;
    }
    prepare();
    while (true) {
      try {
        Files.move(tree, dir.resolve(entryName(uid, gid, tree.getFileName().toString())));
        return true;
      } catch (FileAlreadyExistsException taken) {
        // a name an earlier mom process gave: take the next
      } catch (NoSuchFileException gone) {
        return false;
      }
    }
  }

  /**
   * Moves {@code name} out of {@code from}, a directory its owner controls, into the trash without
   * resolving a path there, to be removed as {@code uid} and {@code gid}: the caller says whose it
   * is, since its owner may have put anything at that name.
   */
  public void discard(SecureDirectoryStream<Path> from, Path name, int uid, int gid)
      throws IOException {
    prepare();
    try (DirectoryStream<Path> opened = Files.newDirectoryStream(dir)) {
      if (!(opened instanceof SecureDirectoryStream<Path> trash)) {
        throw new IOException("this platform cannot move " + name + " safely (no renameat)");
      }
      while (true) {
        Path target = Path.of(entryName(uid, gid, name.toString()));
        if (!Files.exists(dir.resolve(target), LinkOption.NOFOLLOW_LINKS)) {
          from.move(name, trash, target);
          return;
        }
      }
    }
  }

  /** What the trash holds, with whose each entry is; names the mom did not give go as the mom. */
  public List<Entry> entries() throws IOException {
    List<Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> names = Files.newDirectoryStream(dir)) {
      for (Path p : names) {
        entries.add(entry(p.getFileName().toString()));
      }
    } catch (NoSuchFileException none) {
      // nothing was ever discarded here
    }
    return entries;
  }

  static Entry entry(String name) {
    String[] parts = name.split("\\.", 3);
    try {
      if (parts.length == 3) {
        return new Entry(name, Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
      }
    } catch (NumberFormatException e) {
      // not a name the mom gave
    }
    return new Entry(name, -1, -1);
  }

  /** Removes {@code entry} as its owner, at most {@code budget} removals of it. */
  public TreeRemover.Outcome remove(Entry entry, long budget) {
    return TreeRemover.remove(dir, entry.name(), entry.uid(), entry.gid(), budget);
  }

  private static String entryName(int uid, int gid, String name) {
    return uid + "." + gid + "." + name + "." + NAMES.incrementAndGet();
  }

  private void prepare() throws IOException {
    JobFiles.prepareBase(dir, "rwx------");
  }
}
