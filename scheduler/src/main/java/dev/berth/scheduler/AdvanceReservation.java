package dev.berth.scheduler;

import java.util.List;

/**
 * An administrator's reservation as planning sees it: whole nodes held over [{@code start}, {@code
 * end}) for the jobs of one queue. Those jobs run only on these nodes and only inside the window,
 * and end with it; no other job may hold these nodes at any moment of it.
 */
public record AdvanceReservation(
    String id, String queue, long start, long end, List<String> nodes) {
  public AdvanceReservation {
    nodes = List.copyOf(nodes);
    if (end <= start) {
      throw new IllegalArgumentException("reservation " + id + " ends before it begins");
    }
  }

  /** Whether the window meets [{@code from}, {@code to}). */
  public boolean meets(long from, long to) {
    return start < to && from < end;
  }
}
