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
 */
public final class HostList {
  private HostList() {}

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
    List<Host> sorted = sorted(hosts).stream().map(Host::of).toList();
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      Host first = sorted.get(i);
      if (!first.numbered()) {
        append(out, first.name());
        i++;
        continue;
      }
      // every host of this prefix: one bracket group of ranges
      List<String> ranges = new ArrayList<>();
      int end = i;
      while (end < sorted.size()
          && sorted.get(end).numbered()
          && sorted.get(end).prefix().equals(first.prefix())) {
        int last = end;
        while (last + 1 < sorted.size() && sorted.get(last + 1).follows(sorted.get(last))) {
          last++;
        }
        String from = digits(sorted.get(end));
        ranges.add(last == end ? from : from + "-" + digits(sorted.get(last)));
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
