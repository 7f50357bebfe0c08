package dev.berth.core;

/**
 * The version of one of Berth's stored formats: the journal (and its snapshots), the records on the
 * journal's Kafka topic, the moms' job records. Each store is marked with the version it was
 * written in; a release reads every version up to its own and refuses a newer one with a message
 * that says so, instead of misreading it. Releases before the marks wrote version 1, unmarked.
 *
 * @param what what the store is, for the message ("the journal in /var/lib/berth/journal")
 * @param current the version this release writes and the newest it reads
 */
public record FormatVersion(String what, int current) {
  /** What a store without a mark was written in. */
  public static final int UNMARKED = 1;

  /**
   * {@code found} when this release reads it; otherwise an exception whose message says that a
   * newer Berth wrote the store and what to do.
   */
  public int check(int found) {
    if (found < UNMARKED || found > current) {
      throw new IllegalStateException(
          what
              + " is in format "
              + found
              + ", which a newer Berth wrote; this one reads formats "
              + UNMARKED
              + " to "
              + current
              + ". Run the newer release again (a store is never converted back), or restore"
              + " this release's backup of it");
    }
    return found;
  }

  /** {@link #check} of a mark as stored: a decimal number, or null when the store has none. */
  public int check(String mark) {
    if (mark == null) {
      return UNMARKED;
    }
    try {
      return check(Integer.parseInt(mark.strip()));
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          what + " is marked with format '" + mark.strip() + "', which is not a version number");
    }
  }

  /** The mark this release writes. */
  public String mark() {
    return Integer.toString(current);
  }
}
