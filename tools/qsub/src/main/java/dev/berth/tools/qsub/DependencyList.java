package dev.berth.tools.qsub;

import java.util.Set;

/**
 * The check Torque's qsub makes on {@code -W depend=}: a comma list of {@code
 * type:jobid[:jobid...]} where every job id starts with digits ({@code 123}, {@code 123.server},
 * {@code 123[]}), or {@code on:COUNT} / {@code synccount:COUNT}. A template placeholder such as
 * {@code afterok:TOKEN} is refused here, before it reaches the server. Server suffixes are added by
 * the server.
 */
final class DependencyList {
  private static final Set<String> COUNT_TYPES = Set.of("on", "synccount");
  private static final Set<String> JOB_TYPES =
      Set.of(
          "after",
          "afterok",
          "afternotok",
          "afterany",
          "before",
          "beforeok",
          "beforenotok",
          "beforeany",
          "syncwith",
          "afterstartarray",
          "afterokarray",
          "afternotokarray",
          "afteranyarray",
          "beforestartarray",
          "beforeokarray",
          "beforenotokarray",
          "beforeanyarray");

  private DependencyList() {}

  static void check(String value) throws QsubException {
    for (String dependency : value.split(",", -1)) {
      String[] parts = dependency.split(":", -1);
      String type = parts[0];
      if (parts.length < 2) {
        throw bad(value, "'" + dependency + "' is not type:jobid (e.g. afterok:123)");
      }
      if (COUNT_TYPES.contains(type)) {
        checkCount(value, parts);
      } else if (JOB_TYPES.contains(type)) {
        checkJobIds(value, parts);
      } else {
        throw bad(
            value,
            "unknown dependency type '"
                + type
                + "' (use after, afterok, afternotok, afterany,"
                + " before, beforeok, beforenotok, beforeany, on, ...)");
      }
    }
  }

  private static void checkCount(String value, String[] parts) throws QsubException {
    if (parts.length != 2 || !parts[1].matches("\\d+")) {
      throw bad(value, parts[0] + " takes one count (e.g. on:2)");
    }
  }

  private static void checkJobIds(String value, String[] parts) throws QsubException {
    for (int i = 1; i < parts.length; i++) {
      if (!parts[i].matches("\\d.*")) {
        throw bad(value, "job id '" + parts[i] + "' must start with digits (e.g. 123.server)");
      }
    }
  }

  private static QsubException bad(String value, String why) {
    return new QsubException("illegal -W depend value '" + value + "': " + why);
  }
}
