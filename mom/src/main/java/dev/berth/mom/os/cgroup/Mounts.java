package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The cgroup mounts of this host (from a mountinfo file) and the mom's own cgroups (from a
 * /proc/self/cgroup-style file).
 */
final class Mounts {
  /**
   * One cgroup mount.
   *
   * @param root the directory of the hierarchy that is mounted (not {@code /} when a container
   *     runtime bind-mounted a sub-tree)
   * @param options the super options: the v1 controllers ({@code cpuset}, {@code cpu,cpuacct}),
   *     {@code name=...}, {@code rw} and flags such as {@code noprefix}
   */
  record Mount(Path mountPoint, String root, String type, Set<String> options) {
    boolean v2() {
      return type.equals("cgroup2");
    }

    /** The directory of {@code cgroupPath} under this mount, if the mount shows it. */
    Optional<Path> dirOf(String cgroupPath) {
      String rel;
      if (root.equals("/")) {
        rel = cgroupPath;
      } else if (cgroupPath.equals(root)) {
        rel = "/";
      } else if (cgroupPath.startsWith(root + "/")) {
        rel = cgroupPath.substring(root.length());
      } else {
        return Optional.empty();
      }
      return Optional.of(mountPoint.resolve(rel.substring(1)).normalize());
    }
  }

  private final List<Mount> mounts;
  private final Map<String, String> own;

  Mounts(List<Mount> mounts, Map<String, String> own) {
    this.mounts = List.copyOf(mounts);
    this.own = Map.copyOf(own);
  }

  static Mounts read(Path mountinfo, Path selfCgroup) throws IOException {
    return new Mounts(
        parseMountinfo(Files.readString(mountinfo)), parseCgroupFile(Files.readString(selfCgroup)));
  }

  List<Mount> all() {
    return mounts;
  }

  /**
   * What moving each job into its cgroups costs, for a driver's description: empty when a cgroup
   * hierarchy is mounted with {@code favordynmods} (Linux 6.0 and later, also set for every mount
   * by the boot option {@code cgroup_favordynmods=true}); else the note that each move waits for an
   * RCU grace period. The kernel guards moves with one lock for all hierarchies, which without the
   * option is cheap for fork and exit and slow to take for a move: 10-35 ms on an idle machine
   * here, a few ms under load, the largest wait in a short job's start (docs/admin-guide.md).
   */
  String movesNote() {
    boolean favored = mounts.stream().anyMatch(m -> m.options().contains("favordynmods"));
    return favored
        ? ""
        : " (each job's move into its cgroups waits for an RCU grace period:"
            + " no cgroup hierarchy is mounted with favordynmods)";
  }

  /** The cgroup v1 mounts holding {@code controller}, best first (whole hierarchy first). */
  List<Mount> v1(String controller) {
    List<Mount> found = new ArrayList<>();
    for (Mount m : mounts) {
      if (!m.v2() && m.options().contains(controller)) {
        found.add(m.root().equals("/") ? 0 : found.size(), m);
      }
    }
    return found;
  }

  /** The cgroup v2 mounts, {@code /sys/fs/cgroup} first. */
  List<Mount> v2() {
    List<Mount> found = new ArrayList<>();
    for (Mount m : mounts) {
      if (m.v2()) {
        found.add(m.mountPoint().equals(Path.of("/sys/fs/cgroup")) ? 0 : found.size(), m);
      }
    }
    return found;
  }

  /**
   * The mom's own cgroup in the v1 hierarchy of {@code controller}, or in the v2 hierarchy for
   * {@link CgroupConfig#UNIFIED}.
   */
  Optional<String> own(String controller) {
    return Optional.ofNullable(own.get(controller));
  }

  /** Parses {@code /proc/PID/mountinfo}, keeping the {@code cgroup} and {@code cgroup2} mounts. */
  static List<Mount> parseMountinfo(String text) {
    List<Mount> result = new ArrayList<>();
    for (String line : text.split("\n")) {
      String[] f = line.strip().split(" ");
      int dash = List.of(f).indexOf("-");
      if (dash < 6 || f.length < dash + 4) {
        continue;
      }
      String type = f[dash + 1];
      if (!type.equals("cgroup") && !type.equals("cgroup2")) {
        continue;
      }
      Set<String> options = new LinkedHashSet<>(List.of(f[dash + 3].split(",")));
      result.add(new Mount(Path.of(unescape(f[4])), unescape(f[3]), type, options));
    }
    return result;
  }

  /**
   * Parses {@code /proc/PID/cgroup}: {@code 4:memory:/process_api/x}, {@code 2:cpu,cpuacct:/} and,
   * for v2, {@code 0::/system.slice/x.service}. Keys are the controllers (and {@code name=...}),
   * {@link CgroupConfig#UNIFIED} for v2.
   */
  static Map<String, String> parseCgroupFile(String text) {
    Map<String, String> own = new HashMap<>();
    for (String line : text.split("\n")) {
      String[] f = line.strip().split(":", 3);
      if (f.length < 3) {
        continue;
      }
      if (f[0].equals("0") && f[1].isEmpty()) {
        own.put(CgroupConfig.UNIFIED, f[2]);
      } else {
        for (String c : f[1].split(",")) {
          own.put(c, f[2]);
        }
      }
    }
    return own;
  }

  /** Undoes mountinfo's octal escapes ({@code \040} for a space, {@code \134} for a backslash). */
  static String unescape(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
