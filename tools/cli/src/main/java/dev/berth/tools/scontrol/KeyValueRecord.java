package dev.berth.tools.scontrol;

import dev.berth.core.ControlCharacters;
import java.util.ArrayList;
import java.util.List;

/**
 * One record of {@code scontrol show}: groups of {@code Key=Value} pairs, the first line from
 * column 0 and each later group on a line of its own after three spaces, or with {@code -o} all on
 * one line. Values are printed with their control characters escaped, so that a job name cannot
 * forge a line of the record.
 */
final class KeyValueRecord {
  private final List<String> groups = new ArrayList<>();

  /** Adds a group: its pairs, {@code key} then {@code value}, alternately, joined by spaces. */
  KeyValueRecord group(String... keysAndValues) {
    StringBuilder g = new StringBuilder();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      if (i > 0) {
        g.append(' ');
      }
      g.append(keysAndValues[i]).append('=').append(ControlCharacters.escape(keysAndValues[i + 1]));
    }
    groups.add(g.toString());
    return this;
  }

  /** Adds text as it is to the last group ({@code " "}, a trailing space some groups have). */
  KeyValueRecord then(String text) {
    groups.set(groups.size() - 1, groups.get(groups.size() - 1) + text);
    return this;
  }

  /**
   * The record as scontrol prints it, without its end (a job's ends in a line of three spaces and
   * an empty line, a node's in an empty line).
   */
  String render(boolean oneLiner) {
    return String.join(oneLiner ? " " : "\n   ", groups);
  }
}
