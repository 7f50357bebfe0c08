package dev.berth.tools.qstat;

import java.util.Map;

/** Job counts by state letter, as the server reports them for a queue or the server. */
record StateCounts(Map<String, Integer> counts) {
  int of(String letter) {
    return counts.getOrDefault(letter, 0);
  }

  /** Torque's state_count text: {@code Transit:0 Queued:1 Held:0 ... Complete:0 }. */
  String text() {
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
