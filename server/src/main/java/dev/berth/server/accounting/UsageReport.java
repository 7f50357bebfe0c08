package dev.berth.server.accounting;

import dev.berth.core.BadValueException;
import dev.berth.core.Durations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What accounting files say was used, per user, group, account and queue: from their E records
 * (Torque's or Berth's), the jobs that ended, their CPU hours (walltime times the slots they held,
 * what a site bills), CPU time used, and walltime.
 */
public final class UsageReport {
  /** The groupings, in the order reports show them. */
  public static final List<String> KEYS = List.of("user", "group", "account", "queue");

  /** The usage of one user, group, account or queue. */
  public record Usage(
      String name, long jobs, long slotSeconds, long cputSeconds, long wallSeconds) {
    Usage plus(long slots, long cput, long wall) {
      return new Usage(name, jobs + 1, slotSeconds + slots, cputSeconds + cput, wallSeconds + wall);
    }
  }

  private final Map<String, Map<String, Usage>> by = new LinkedHashMap<>();
  private long jobs;
  private long unreadable;

  public UsageReport() {
    KEYS.forEach(k -> by.put(k, new TreeMap<>()));
  }

  /** Counts one line of an accounting file: an E record; anything else is passed over. */
  public void add(String line) {
    String[] fields = line.split(";", 4);
    if (fields.length < 4 || !fields[1].equals("E")) {
      return;
    }
    Map<String, String> a = new HashMap<>();
    for (String token : fields[3].strip().split("\\s+")) {
      int eq = token.indexOf('=');
      if (eq > 0) {
        a.put(token.substring(0, eq), token.substring(eq + 1));
      }
    }
    long wall;
    long cput;
    long slots;
    try {
      wall = seconds(a.getOrDefault("resources_used.walltime", "0"));
      cput = seconds(a.getOrDefault("resources_used.cput", "0"));
      slots = Long.parseLong(a.getOrDefault("total_execution_slots", "1"));
    } catch (BadValueException | NumberFormatException e) {
      unreadable++;
      return;
    }
    jobs++;
    for (String key : KEYS) {
      String name = a.getOrDefault(key, "");
      by.get(key)
          .compute(
              name.isEmpty() ? "(none)" : name,
              (n, u) -> (u == null ? new Usage(n, 0, 0, 0, 0) : u).plus(wall * slots, cput, wall));
    }
  }

  /** Torque writes resources_used.cput as seconds, walltime as HH:MM:SS; both are read. */
  private static long seconds(String v) throws BadValueException {
    return v.indexOf(':') < 0 ? Long.parseLong(v) : Durations.parseSeconds(v);
  }

  public long jobs() {
    return jobs;
  }

  /** E records whose numbers could not be read, left out. */
  public long unreadable() {
    return unreadable;
  }

  public List<Usage> by(String key) {
    return new ArrayList<>(by.get(key).values());
  }

  /** A table per grouping, hours with two decimals. */
  public String text(String from, String to) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                "Usage from %s to %s: %d jobs ended%s%n",
                from,
                to,
                jobs,
                unreadable == 0 ? "" : " (" + unreadable + " E records unreadable, left out)"));
    for (String key : KEYS) {
      out.append(
          String.format(
              "%n%-20s %8s %12s %12s %12s%n",
              key, "jobs", "cpu_hours", "cput_hours", "wall_hours"));
      for (Usage u : by(key)) {
        out.append(
            String.format(
                Locale.ROOT,
                "%-20s %8d %12.2f %12.2f %12.2f%n",
                u.name(),
                u.jobs(),
                u.slotSeconds() / 3600.0,
                u.cputSeconds() / 3600.0,
                u.wallSeconds() / 3600.0));
      }
    }
    return out.toString();
  }

  /** The same as JSON: {@code {"from":..,"to":..,"jobs":..,"by":{"user":[{..}],..}}}. */
  public String json(String from, String to) {
    StringBuilder out = new StringBuilder();
    out.append("{\"from\":")
        .append(quote(from))
        .append(",\"to\":")
        .append(quote(to))
        .append(",\"jobs\":")
        .append(jobs)
        .append(",\"unreadable\":")
        .append(unreadable)
        .append(",\"by\":{");
    for (int k = 0; k < KEYS.size(); k++) {
      out.append(k == 0 ? "" : ",").append(quote(KEYS.get(k))).append(":[");
      List<Usage> rows = by(KEYS.get(k));
      for (int i = 0; i < rows.size(); i++) {
        Usage u = rows.get(i);
        out.append(i == 0 ? "" : ",")
            .append("{\"name\":")
            .append(quote(u.name()))
            .append(",\"jobs\":")
            .append(u.jobs())
            .append(",\"cpu_seconds\":")
            .append(u.slotSeconds())
            .append(",\"cput_seconds\":")
            .append(u.cputSeconds())
            .append(",\"wall_seconds\":")
            .append(u.wallSeconds())
            .append('}');
      }
      out.append(']');
    }
    return out.append("}}\n").toString();
  }

  /** {@code s} as a JSON string. */
  static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
