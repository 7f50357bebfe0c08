package dev.berth.tools.qsub;

/**
 * A word of scontrol's language ({@code show}, {@code TimeLimit}) and the fewest of its first
 * letters that name it: Slurm compares keywords in any case, as prefixes at least that long.
 */
public record SlurmKeyword(String name, int shortest) {
  /** Whether {@code word} names it: one of its prefixes, at least {@code shortest} long. */
  public boolean named(String word) {
    return word.length() >= shortest
        && word.length() <= name.length()
        && name.regionMatches(true, 0, word, 0, word.length());
  }
}
