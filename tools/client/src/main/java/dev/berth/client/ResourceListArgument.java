package dev.berth.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The value of a {@code -l} option (qsub, qalter, pbs_rsub): comma-separated {@code name=value}
 * resource requests, in order. Names are not checked here; each command decides which it takes.
 */
public final class ResourceListArgument {
  private ResourceListArgument() {}

  /**
   * The requests in {@code value}; the exception's message follows {@code -l } when shown ({@code
   * -l wd: resource request must be name=value}).
   */
  public static List<Map.Entry<String, String>> parse(String value) throws BadArgumentException {
    List<Map.Entry<String, String>> items = new ArrayList<>();
    for (String raw : value.split(",")) {
      String item = raw.strip();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new BadArgumentException(item + ": resource request must be name=value");
      }
      String name = item.substring(0, eq).strip();
      String v = item.substring(eq + 1).strip();
      if (v.isEmpty()) {
        throw new BadArgumentException(item + ": resource " + name + " has no value");
      }
      items.add(Map.entry(name, v));
    }
    if (items.isEmpty()) {
      throw new BadArgumentException("needs name=value resource requests");
    }
    return items;
  }
}
