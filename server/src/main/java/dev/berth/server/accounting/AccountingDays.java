package dev.berth.server.accounting;

import dev.berth.proto.Event;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.time.ZoneId;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The accounting lines events make, by day: each event applied to the state before it, as the live
 * server and the journal's replay both apply them, and its records' lines added to their day's
 * text. One piece for both, so that what berth accounting makes again is what the server wrote.
 */
final class AccountingDays {
  /** Adding a line would take the days past their bound. */
  static final class TooLong extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLong() {
      super(null, null, false, false);
    }
  }

  private final ZoneId zone;
  private final Predicate<String> wanted;
  private final long maxBytes;
  private final Map<String, StringBuilder> days = new TreeMap<>();
  private ClusterState state;
  private long bytes;

  /**
   * @param start the state before the first event
   * @param wanted which days ({@code YYYYMMDD}) are kept
   * @param maxBytes the most text the days may hold; beyond, {@link #add} throws {@link TooLong}
   */
  AccountingDays(ClusterState start, ZoneId zone, Predicate<String> wanted, long maxBytes) {
    this.state = start;
    this.zone = zone;
    this.wanted = wanted;
    this.maxBytes = maxBytes;
  }

  void add(Event e) {
    ClusterState next = StateMachine.apply(state, e);
    for (AccountingRecord r : AccountingRecords.of(state, e, next)) {
      String name = r.file(zone);
      if (wanted.test(name)) {
        String line = r.line(zone);
        bytes += line.length();
        if (bytes > maxBytes) {
          throw new TooLong();
        }
        days.computeIfAbsent(name, n -> new StringBuilder()).append(line);
      }
    }
    state = next;
  }

  /** The days' text, in order of their names (which is their order in time). */
  Map<String, StringBuilder> days() {
    return days;
  }
}
