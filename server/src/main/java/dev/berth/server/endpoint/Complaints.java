package dev.berth.server.endpoint;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Log lines about clients that hit a limit: the first of a kind for a user at once, then at most
 * one a while, the others counted into a closing line, so that a client cannot flood the log by
 * misbehaving. Selector thread only.
 */
final class Complaints {
  private final Consumer<String> log;
  private final long quietMillis;
  private final Map<String, Quiet> quiet = new HashMap<>();

  /** A user and kind that was logged lately, and how many like it were not. */
  private static final class Quiet {
    final String about;
    final long until;
    int held;

    Quiet(String about, long until) {
      this.about = about;
      this.until = until;
    }
  }

  Complaints(Consumer<String> log, long quietMillis) {
    this.log = log;
    this.quietMillis = quietMillis;
  }

  /** Logs {@code line} about {@code user}, unless one of this {@code kind} was logged lately. */
  void about(String user, String kind, String line, long now) {
    String key = user + '\0' + kind;
    Quiet q = quiet.get(key);
    if (q != null && now < q.until) {
      q.held++;
      return;
    }
    if (q != null) {
      close(q);
    }
    log.accept(line);
    quiet.put(key, new Quiet("user " + user + ": " + kind, now + quietMillis));
  }

  /** Ends the quiet periods that are over, saying how many lines each held back. */
  void sweep(long now) {
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
      log.accept(q.about + ": " + q.held + " more like the last in " + quietMillis / 1000 + " s");
    }
  }
}
