package dev.berth.mom.os.cgroup;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** Linux CPU list syntax ({@code 0-3,6}) as cpuset files use it. */
final class CpuList {
  private CpuList() {}

  static String format(List<Integer> cpus) {
    StringBuilder s = new StringBuilder();
    Integer start = null;
    Integer prev = null;
    for (int c : new TreeSet<>(cpus)) {
      if (prev != null && c == prev + 1) {
        prev = c;
        continue;
      }
      append(s, start, prev);
      start = c;
      prev = c;
    }
    append(s, start, prev);
    return s.toString();
  }

  private static void append(StringBuilder s, Integer start, Integer end) {
    if (start == null) {
      return;
    }
    if (s.length() > 0) {
      s.append(',');
    }
    s.append(start);
    if (end > start) {
      s.append('-').append(end);
    }
  }

  static List<Integer> parse(String text) {
    List<Integer> cpus = new ArrayList<>();
    for (String part : text.strip().split(",")) {
      if (part.isBlank()) {
        continue;
      }
      int dash = part.indexOf('-');
      int low = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).strip());
      int high = dash < 0 ? low : Integer.parseInt(part.substring(dash + 1).strip());
      for (int c = low; c <= high; c++) {
        cpus.add(c);
      }
    }
    return cpus;
  }
}
