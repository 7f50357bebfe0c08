package dev.berth.mom;

import dev.berth.mom.os.ContainerCache;
import dev.berth.mom.os.Trash;
import dev.berth.mom.os.TreeRemover;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Empties the node's trash directories — the TMPDIRs, output spools and evicted images that jobs
 * left, each removed as its owner ({@link Trash}, {@link TreeRemover}) — and keeps the container
 * cache within its limit, on a thread of its own: a tree of millions of entries takes seconds, and
 * no actor waits for it. A tree that cannot be removed stays in the trash, is tried again later
 * (after {@link #FIRST_RETRY}, doubling up to {@link #LAST_RETRY}) and is reported on the node's
 * status ({@link #summary()}) until it goes, while the mom serves its other jobs as before; one
 * that a restart finds in the trash is removed like any other.
 */
public final class Cleanup implements AutoCloseable {
  static final Duration FIRST_RETRY = Duration.ofSeconds(10);
  static final Duration LAST_RETRY = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(Cleanup.class);

  /** Removals that took longer than this are logged (at info), with their figures. */
  private static final long SLOW_MILLIS = 1000;

  private final List<Trash> bins;
  private final ContainerCache cache;
  private final Consumer<String> changed;
  private final Clock clock;

  /** Trees that could not be removed, by their path in the trash; the cleanup thread's alone. */
  private final Map<Path, Failure> failures = new HashMap<>();

  private String cacheProblem = "";
  private volatile String summary = "";

  private final Object wake = new Object();
  private boolean poked;
  private boolean closed;
  private Thread thread;

  private record Failure(int tries, long nextMillis, String problem) {}

  /**
   * @param bins the trash directories to empty
   * @param cache the node's container cache, or null when it has none
   * @param changed told the new {@link #summary()} whenever it changes, on the cleanup thread
   */
  Cleanup(List<Trash> bins, ContainerCache cache, Consumer<String> changed, Clock clock) {
    this.bins = List.copyOf(bins);
    this.cache = cache;
    this.changed = changed;
    this.clock = clock;
  }

  /** The trash directories of a mom with these settings. */
  static List<Trash> bins(MomConfig config) {
    return config.containers() == null
        ? List.of(Trash.in(config.tmpBase()))
        : List.of(Trash.in(config.tmpBase()), Trash.in(config.containers().base()));
  }

  /** Starts the cleanup thread, whose first round empties what an earlier mom process left. */
  void start() {
    thread = new Thread(this::loop, "berth-cleanup");
    thread.setDaemon(true);
    thread.start();
  }

  /** A round soon: something was put in the trash (a job has gone). */
  void poke() {
    synchronized (wake) {
      poked = true;
      wake.notifyAll();
    }
  }

  /**
   * What is left that should not be, for the node's status: "" when nothing. No name from a tree
   * and no job id, since every user may read a node's status.
   */
  String summary() {
    return summary;
  }

  /** Ends the thread after the slice it is removing, if any. */
  @Override
  public void close() {
    synchronized (wake) {
      closed = true;
      wake.notifyAll();
    }
  }

  private void loop() {
    while (true) {
      long next;
      try {
        next = round();
      } catch (RuntimeException e) {
        LOG.error("the cleanup of the node's trash failed; trying again later", e);
        next = clock.millis() + FIRST_RETRY.toMillis();
      }
      synchronized (wake) {
        long wait = next - clock.millis();
        while (!poked && !closed && wait > 0) {
          try {
            wake.wait(wait);
          } catch (InterruptedException e) {
            return;
          }
          wait = next - clock.millis();
        }
        if (closed) {
          return;
        }
        poked = false;
      }
    }
  }

  /**
   * One round: the container cache brought within its limit, then every tree in the trash removed
   * (a slice of each) unless it failed and its next try is not due. Returns when the next round is
   * due: at once while a tree has more to remove, else at the earliest retry (never, without one).
   */
  long round() {
    keepCacheWithinLimit();
    long now = clock.millis();
    boolean more = false;
    Set<Path> present = new HashSet<>();
    for (Trash bin : bins) {
      List<Trash.Entry> entries;
      try {
        entries = bin.entries();
      } catch (IOException e) {
        LOG.warn("cannot list the trash {}: {}", bin.dir(), e.getMessage());
        continue;
      }
      for (Trash.Entry entry : entries) {
        Path tree = bin.dir().resolve(entry.name());
        present.add(tree);
        Failure failed = failures.get(tree);
        if (failed == null || failed.nextMillis() <= now) {
          more |= remove(bin, entry, tree, failed);
        }
      }
    }
    failures.keySet().retainAll(present); // an administrator may have removed some meanwhile
    publish();
    if (more) {
      return now;
    }
    return failures.values().stream().mapToLong(Failure::nextMillis).min().orElse(Long.MAX_VALUE);
  }

  /** A slice of one tree; returns whether it has more to remove at once. */
  private boolean remove(Trash bin, Trash.Entry entry, Path tree, Failure failed) {
    long started = System.nanoTime();
    TreeRemover.Outcome outcome = bin.remove(entry, TreeRemover.SLICE);
    long millis = (System.nanoTime() - started) / 1_000_000;
    switch (outcome.state()) {
      case REMOVED -> {
        failures.remove(tree);
        if (failed != null || millis > SLOW_MILLIS) {
          LOG.info(
              "removed {} as user {}: {} entries, {} moved up, at most {} directories open, in {} ms",
              tree,
              entry.uid(),
              outcome.removed(),
              outcome.movedUp(),
              outcome.mostOpen(),
              millis);
        }
        return false;
      }
      case MORE -> {
        return true;
      }
      default -> {
        int tries = failed == null ? 1 : failed.tries() + 1;
        long delay = FIRST_RETRY.toMillis() << Math.min(tries - 1, 20);
        delay = Math.min(delay, LAST_RETRY.toMillis());
        failures.put(tree, new Failure(tries, clock.millis() + delay, outcome.problem()));
        LOG.warn(
            "cannot remove {} as user {} (try {}): {}; trying again in {} s",
            tree,
            entry.uid(),
            tries,
            outcome.problem(),
            delay / 1000);
        return false;
      }
    }
  }

  private void keepCacheWithinLimit() {
    if (cache == null) {
      return;
    }
    try {
      List<Path> evicted = cache.evict();
      if (!evicted.isEmpty()) {
        LOG.info("evicted {} images from the {}", evicted.size(), cache.describe());
      }
      cacheProblem = "";
    } catch (IOException e) {
      if (cacheProblem.isEmpty()) {
        LOG.warn("cannot keep the {} within its limit: {}", cache.describe(), e.getMessage());
      }
      cacheProblem = "the container cache is over its limit: " + e.getMessage();
    }
  }

  private void publish() {
    String now = describe();
    if (!now.equals(summary)) {
      summary = now;
      changed.accept(now);
    }
  }

  private String describe() {
    if (failures.isEmpty()) {
      return cacheProblem;
    }
    Failure first = failures.values().iterator().next();
    String trees =
        failures.size()
            + (failures.size() == 1 ? " directory" : " directories")
            + " left in the trash ("
            + first.problem()
            + "; tried "
            + first.tries()
            + (first.tries() == 1 ? " time)" : " times)");
    return cacheProblem.isEmpty() ? trees : trees + "; " + cacheProblem;
  }
}
