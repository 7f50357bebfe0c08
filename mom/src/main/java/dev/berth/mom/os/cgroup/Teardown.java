package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/** Ending a job's cgroup: killing everything in it, then removing its directories. */
final class Teardown {
  private static final long ROUND_NANOS = Duration.ofMillis(100).toNanos();

  /**
   * How long a round waits for its cgroup to freeze: a process that cannot freeze yet is killed as
   * it runs, and the next round catches what it forked meanwhile.
   */
  private static final Duration FREEZE_WAIT = Duration.ofMillis(100);

  private Teardown() {}

  /**
   * SIGKILLs every pid in {@code procsFiles} while frozen, thaws, and repeats until none is left or
   * the timeout has passed (at least one round even with a zero timeout); returns whether none is
   * left. A cgroup frozen before (a suspended job) ends thawed, so that the kills take effect.
   */
  static boolean killAll(
      Kernel kernel, Collection<Path> procsFiles, Freezer freezer, Duration timeout)
      throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!ControlFiles.pids(procsFiles).isEmpty()) {
      freezer.freeze(FREEZE_WAIT);
      try {
        for (long pid : ControlFiles.pids(procsFiles)) {
          kernel.kill(pid);
        }
      } finally {
        freezer.thaw();
      }
      long round = System.nanoTime() + ROUND_NANOS;
      if (awaitEmpty(procsFiles, round - deadline < 0 ? round : deadline)) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
    }
    return true;
  }

  /** Polls until no pid is left in {@code procsFiles} or {@code deadline} (nanoTime). */
  static boolean awaitEmpty(Collection<Path> procsFiles, long deadline) throws IOException {
    long pause = 1;
    while (!ControlFiles.pids(procsFiles).isEmpty()) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      sleep(pause);
      pause = Math.min(pause * 2, 20);
    }
    return true;
  }

  /**
   * Removes each directory with the cgroups below it (deepest first), retrying while the kernel
   * reports one busy (a process that was killed has not finished exiting yet).
   */
  static void remove(Kernel kernel, Collection<Path> dirs, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Path dir : dirs) {
      long pause = 1;
      while (true) {
        try {
          removeTree(kernel, dir);
          break;
        } catch (FileSystemException e) {
          if (e instanceof NoSuchFileException) {
            break;
          }
          if (System.nanoTime() - deadline >= 0) {
            throw new IOException(
                "cannot remove the cgroup "
                    + dir
                    + " within "
                    + timeout.toMillis()
                    + " ms: "
                    + (e.getReason() != null ? e.getReason() : e.getMessage()),
                e);
          }
          sleep(pause);
          pause = Math.min(pause * 2, 50);
        }
      }
    }
  }

  /**
   * Removes {@code dir}, and first the cgroups below it if it has any. A job's cgroup seldom has:
   * the directory is removed at once, and only one the kernel calls busy is listed (stat-ing every
   * control file of every controller's directory took more of a mom's time than the removal). Only
   * root makes cgroups (the mom does not delegate them, so a job of a user cannot), but a job root
   * runs could nest them deep: the walk goes down to a leaf and back up by name, holding nothing
   * open and using no stack per level.
   */
  private static void removeTree(Kernel kernel, Path dir) throws IOException {
    Path at = dir;
    while (true) {
      try {
        kernel.rmdir(at);
      } catch (NoSuchFileException gone) {
        // removed meanwhile, or never made
      } catch (FileSystemException busy) {
        Path below = firstChild(at);
        if (below == null) {
          throw busy; // processes still inside: the caller tries again
        }
        if (!below.equals(at)) {
          at = below;
          continue;
        }
      }
      if (at.equals(dir)) {
        return;
      }
      at = at.getParent();
    }
  }

  /** A cgroup below {@code dir}; null if it has none, {@code dir} itself if it is gone. */
  private static Path firstChild(Path dir) throws IOException {
    try (Stream<Path> list = Files.list(dir)) {
      return list.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .findFirst()
          .orElse(null);
    } catch (NoSuchFileException e) {
      return dir;
    }
  }

  /**
   * Removes the levels of a mom's root below {@code parent} deepest first, stopping at a level that
   * still holds cgroups (another mom's root or a job); returns whether all are gone.
   */
  static boolean removeLevels(Kernel kernel, Path parent, List<String> levels) throws IOException {
    for (int i = levels.size(); i > 0; i--) {
      Path dir = parent.resolve(String.join("/", levels.subList(0, i)));
      try {
        kernel.rmdir(dir);
      } catch (NoSuchFileException e) {
        // already gone
      } catch (FileSystemException e) {
        return i < levels.size();
      }
    }
    return true;
  }

  static void sleep(long millis) throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException x =
          new InterruptedIOException("interrupted while tearing a cgroup down");
      x.initCause(e);
      throw x;
    }
  }
}
