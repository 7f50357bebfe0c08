package dev.berth.mom.os.cgroup;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a mom places its job cgroups.
 *
 * @param mode which driver: {@code v1}, {@code v2} or {@code auto}
 * @param root the levels below the parent that hold this mom's job cgroups, e.g. {@code berth/n1}
 *     (relative; several moms on one host each take their own, and they must not nest: a mom with
 *     root {@code berth} would take {@code berth/n2} for a job of its own)
 * @param parents the parent cgroup per hierarchy, as a path inside the hierarchy (e.g. {@code /} or
 *     {@code /system.slice/berth-mom.service}), keyed by controller ({@code cpuset}, {@code
 *     memory}, {@code cpuacct}, {@code freezer}) for v1, {@code unified} for v2, or {@link #ALL}
 *     for every hierarchy; a hierarchy without an entry uses the mom's own cgroup in it
 */
public record CgroupConfig(Mode mode, String root, Map<String, String> parents) {
  /** The key of {@link #parents} that applies to every hierarchy without its own entry. */
  public static final String ALL = "*";

  /** The key of {@link #parents} for the cgroup v2 hierarchy. */
  public static final String UNIFIED = "unified";

  public enum Mode {
    AUTO,
    V1,
    V2;

    /** {@code v1}, {@code v2} or {@code auto}, in any case. */
    public static Mode parse(String text) {
      try {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "cgroup mode must be v1, v2 or auto, not '" + text + "'", e);
      }
    }
  }

  public CgroupConfig {
    root = checkRoot(root);
    parents = Map.copyOf(parents);
    parents.forEach(
        (k, v) -> {
          if (!v.startsWith("/") || List.of(v.split("/")).contains("..")) {
            throw new IllegalArgumentException(
                "the cgroup parent for " + k + " must be a path inside the hierarchy: " + v);
          }
        });
  }

  /** Automatic driver choice, the mom's own cgroups as parents. */
  public static CgroupConfig of(String root) {
    return new CgroupConfig(Mode.AUTO, root, Map.of());
  }

  /** The parent for a hierarchy holding {@code controller}, if one is configured. */
  String parentFor(String controller) {
    return parents.getOrDefault(controller, parents.get(ALL));
  }

  /**
   * Parses a parent option: {@code /path} for every hierarchy, or {@code
   * memory=/a,cpuset=/,unified=/b}; the two forms mix ({@code /x,memory=/y}).
   */
  public static Map<String, String> parseParents(String text) {
    Map<String, String> parents = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return parents;
    }
    for (String item : text.split(",")) {
      String s = item.trim();
      int eq = s.indexOf('=');
      if (eq < 0) {
        parents.put(ALL, s);
      } else {
        parents.put(s.substring(0, eq).trim(), s.substring(eq + 1).trim());
      }
    }
    return parents;
  }

  private static String checkRoot(String root) {
    String r = root == null ? "" : root.strip();
    while (r.endsWith("/")) {
      r = r.substring(0, r.length() - 1);
    }
    if (r.isEmpty() || r.startsWith("/")) {
      throw new IllegalArgumentException(
          "the cgroup root must be a relative path such as berth/n1, not '" + root + "'");
    }
    for (String level : r.split("/")) {
      CgroupNames.check(level, "cgroup root level");
    }
    return r;
  }
}
