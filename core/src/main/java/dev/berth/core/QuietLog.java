package dev.berth.core;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Log lines about input a daemon refused (a connection over a limit, a forged letter, a frame too
 * large): the first of a source and kind at once, then at most one a quiet period, the others
 * counted into one closing line, so that no user, job or network peer can flood the log by
 * misbehaving. A source is who caused it (a user, an address, a job), a kind what it did (a limit's
 * name); the line itself may say more.
 *
 * <p>Bounded: it remembers at most {@link #MAX_SOURCES} sources and kinds at once; beyond them (a
 * flood from many addresses) the newcomers share one, {@link #OTHERS}. Thread-safe.
 */
public final class QuietLog {
  /** How many sources and kinds are remembered at once, each a few hundred bytes. */
  public static final int MAX_SOURCES = 4096;

  /** The source that newcomers share while {@link #MAX_SOURCES} are remembered. */
  public static final String OTHERS = "other sources";

  private final Consumer<String> log;
  private final long quietMillis;
  private final LongSupplier clock;
  private final Map<String, Quiet> quiet = new HashMap<>();
  private long nextSweep;

  /** A source and kind that was logged lately, and how many like it were not. */
  private static final class Quiet {
    final String about;
    final long until;
    long held;

    Quiet(String about, long until) {
      this.about = about;
      this.until = until;
    }
  }

  /**
   * Logs to {@code log}, one line of a source and kind per {@code quiet}, reading the time in
   * milliseconds from {@code clock}.
   */
  public QuietLog(Consumer<String> log, Duration quiet, LongSupplier clock) {
    this.log = log;
    this.quietMillis = quiet.toMillis();
    this.clock = clock;
  }

  /** Logs {@code line}, unless one of this {@code source} and {@code kind} was logged lately. */
  public synchronized void say(String source, String kind, String line) {
    long now = clock.getAsLong();
    if (now >= nextSweep) {
      sweep(now);
    }
    String key = source + '\0' + kind;
    Quiet q = quiet.get(key);
    if (q == null && quiet.size() >= MAX_SOURCES) {
      source = OTHERS;
      key = source + '\0' + kind;
      q = quiet.get(key);
    }
    if (q != null && now < q.until) {
      q.held++;
      return;
    }
    if (q != null) {
      close(q);
    }
    log.accept(line);
    quiet.put(key, new Quiet(source + ": " + kind, now + quietMillis));
  }

  /**
   * Ends the quiet periods that are over, saying how many lines each held back. {@link #say} does
   * it too, at most once a second; call this from a timer where a held count must not wait for the
   * next line.
   */
  public synchronized void sweep() {
    sweep(clock.getAsLong());
  }

  private void sweep(long now) {
    nextSweep = now + Math.min(1000, quietMillis);
    for (Iterator<Quiet> it = quiet.values().iterator(); it.hasNext(); ) {
      Quiet q = it.next();
      if (now >= q.until) {
        close(q);
        it.remove();
      }
    }
  }

  private void close(Quiet q) {
    if (q.held > 0) {
      log.accept(q.about + ": " + q.held + " more like the last in " + seconds() + " s");
    }
  }

  private String seconds() {
    return quietMillis % 1000 == 0
        ? Long.toString(quietMillis / 1000)
        : Double.toString(quietMillis / 1000.0);
  }
}
