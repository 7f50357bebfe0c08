package dev.berth.core.slurm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Slurm's compressed host lists, as {@code SLURM_JOB_NODELIST}, squeue and sinfo print them: names
 * ending in digits are grouped by what comes before the digits, sorted, and consecutive numbers of
 * one width become ranges ({@code n01,n02,n03,n05} is {@code n[01-03,05]}); a group of one name
 * keeps no brackets, and names without digits at their end stand alone. And the per-node counts of
 * {@code SLURM_JOB_CPUS_PER_NODE} and {@code SLURM_TASKS_PER_NODE}, where a run of equal counts is
 * written once with its length: {@code 2,2,2,1} is {@code 2(x3),1}.
 *
 * <p>And the other way, a host list written by a person or a variable ({@code
 * rack[1-2]-n[01-02],login}) as its names, for {@code scontrol show hostnames}.
 */
public final class HostList {
  /**
   * The most names one list may stand for: Slurm's own bound on a range (hostlist.c's MAX_RANGE),
   * so that {@code n[1-999999999]} is refused instead of filling the memory of whoever reads it.
   */
  public static final int MAX_HOSTS = 64 * 1024;

  private HostList() {}

  /** A host list that cannot be read, or stands for more than {@link #MAX_HOSTS} names. */
  public static final class InvalidException extends Exception {
    public InvalidException(String list) {
      super("Invalid hostlist: " + list);
    }
  }

  /** A host name split into the part before its trailing digits and those digits. */
  private record Host(String name, String prefix, long number, int width) {
    static Host of(String name) {
      int digits = name.length();
      while (digits > 0 && Character.isDigit(name.charAt(digits - 1))) {
        digits--;
      }
      // numbers too long for a long are kept whole, as names without digits
      if (digits == name.length() || name.length() - digits > 18) {
        return new Host(name, name, -1, 0);
      }
      return new Host(
          name,
          name.substring(0, digits),
          Long.parseLong(name.substring(digits)),
          name.length() - digits);
    }

    boolean numbered() {
      return number >= 0;
    }

    /** Whether its number is written with leading zeros ({@code n01}). */
    boolean padded() {
      return width > 1 && name.charAt(prefix.length()) == '0';
    }

    /**
     * Whether this host follows {@code h} in one range: numbers of one width, or neither padded
     * ({@code n9} and {@code n10} are {@code n[9-10]}, {@code n09} and {@code n10} too).
     */
    boolean follows(Host h) {
      return numbered()
          && h.numbered()
          && prefix.equals(h.prefix)
          && (width == h.width || !padded() && !h.padded())
          && number == h.number + 1;
    }
  }

  private static final Comparator<Host> ORDER =
      Comparator.comparing(Host::prefix)
          .thenComparingLong(Host::number)
          .thenComparingInt(Host::width);

  /** {@code hosts} in the order Slurm lists them: by prefix, then number; duplicates once. */
  public static List<String> sorted(List<String> hosts) {
    return hosts.stream().distinct().map(Host::of).sorted(ORDER).map(Host::name).toList();
  }

  /** {@code hosts}, sorted and compressed; duplicates are listed once. */
  public static String compress(List<String> hosts) {
    return ranged(sorted(hosts));
  }

  /**
   * {@code hosts} compressed in the order given, duplicates kept, as Slurm's ranged string of an
   * unsorted host list ({@code scontrol show hostlist}): a host extends the range before it when it
   * follows it, and neighbouring ranges of one prefix share a bracket ({@code n[3,1-2]}).
   */
  public static String ranged(List<String> hosts) {
    List<Host> all = hosts.stream().map(Host::of).toList();
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < all.size()) {
      Host first = all.get(i);
      if (!first.numbered()) {
        append(out, first.name());
        i++;
        continue;
      }
      // the ranges of this prefix that come one after another: one bracket group
      List<String> ranges = new ArrayList<>();
      int end = i;
      while (end < all.size()
          && all.get(end).numbered()
          && all.get(end).prefix().equals(first.prefix())) {
        int last = end;
        while (last + 1 < all.size() && all.get(last + 1).follows(all.get(last))) {
          last++;
        }
        String from = digits(all.get(end));
        ranges.add(last == end ? from : from + "-" + digits(all.get(last)));
        end = last + 1;
      }
      if (end - i == 1) {
        append(out, first.name());
      } else {
        append(out, first.prefix() + "[" + String.join(",", ranges) + "]");
      }
      i = end;
    }
    return out.toString();
  }

  private static String digits(Host h) {
    return h.name().substring(h.prefix().length());
  }

  private static void append(StringBuilder out, String part) {
    if (out.length() > 0) {
      out.append(',');
    }
    out.append(part);
  }

  /**
   * The names {@code list} stands for, in its order, duplicates kept (as Slurm's hostlist_create):
   * items separated by commas or spaces outside brackets, each bracket a comma list of numbers and
   * ranges {@code lo-hi} written at the width of {@code lo} ({@code n[01-10]}), several brackets in
   * one item multiplied out ({@code r[1-2]n[1-2]} is r1n1, r1n2, r2n1, r2n2).
   */
  public static List<String> expand(String list) throws InvalidException {
    List<String> hosts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i <= list.length(); i++) {
      char c = i < list.length() ? list.charAt(i) : ',';
      if (c == '[') {
        depth++;
      } else if (c == ']') {
        depth--;
      }
      if (depth < 0 || depth > 1) {
        throw new InvalidException(list);
      }
      if (depth == 0 && (c == ',' || Character.isWhitespace(c))) {
        if (i > start) {
          expandItem(list, list.substring(start, i), hosts);
        }
        start = i + 1;
      }
    }
    if (depth != 0) {
      throw new InvalidException(list);
    }
    return hosts;
  }

  /** One item's names, each bracket's numbers in turn with what follows it, added to hosts. */
  private static void expandItem(String list, String item, List<String> hosts)
      throws InvalidException {
    int open = item.indexOf('[');
    if (open < 0) {
      add(list, hosts, item);
      return;
    }
    int close = item.indexOf(']', open);
    String prefix = item.substring(0, open);
    String rest = item.substring(close + 1);
    for (String range : item.substring(open + 1, close).split(",", -1)) {
      int dash = range.indexOf('-');
      String lo = dash < 0 ? range : range.substring(0, dash);
      String hi = dash < 0 ? range : range.substring(dash + 1);
      if (!digits(lo) || !digits(hi) || lo.length() > 18 || hi.length() > 18) {
        throw new InvalidException(list);
      }
      long from = Long.parseLong(lo);
      long to = Long.parseLong(hi);
      if (to < from || to - from >= MAX_HOSTS) {
        throw new InvalidException(list);
      }
      for (long n = from; n <= to; n++) {
        String number = Long.toString(n);
        String padded = "0".repeat(Math.max(0, lo.length() - number.length())) + number;
        if (rest.indexOf('[') >= 0) {
          expandItem(list, prefix + padded + rest, hosts);
        } else {
          add(list, hosts, prefix + padded + rest);
        }
      }
    }
  }

  private static boolean digits(String s) {
    return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
  }

  private static void add(String list, List<String> hosts, String host) throws InvalidException {
    if (hosts.size() >= MAX_HOSTS || host.indexOf(']') >= 0) {
      throw new InvalidException(list);
    }
    hosts.add(host);
  }

  /** Counts in order, each run of equal ones as {@code count(xN)}: {@code 2(x3),1}. */
  public static String counts(List<Integer> counts) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < counts.size()) {
      int run = 1;
      while (i + run < counts.size() && counts.get(i + run).equals(counts.get(i))) {
        run++;
      }
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(counts.get(i));
      if (run > 1) {
        out.append("(x").append(run).append(')');
      }
      i += run;
    }
    return out.toString();
  }
}
