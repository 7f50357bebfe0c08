package dev.berth.tools.format;

import java.util.Map;

/**
 * Job counts by state letter, as the server reports them for a queue, the server or a reservation.
 */
public record StateCounts(Map<String, Integer> counts) {
  public int of(String letter) {
    return counts.getOrDefault(letter, 0);
  }

  /** Torque's state_count text: {@code Transit:0 Queued:1 Held:0 ... Complete:0 }. */
  public String text() {
    return "Transit:"
        + of("T")
        + " Queued:"
        + of("Q")
        + " Held:"
        + of("H")
        + " Waiting:"
        + of("W")
        + " Running:"
        + of("R")
        + " Exiting:"
        + of("E")
        + " Complete:"
        + of("C")
        + " ";
  }
}
