package dev.berth.mom.os.cgroup;

/** The rule for a cgroup directory name made from a job id or a root level. */
final class CgroupNames {
  private CgroupNames() {}

  /** Returns {@code name} if it can be one cgroup directory, else throws. */
  static String check(String name, String what) {
    if (name == null
        || name.isEmpty()
        || name.equals(".")
        || name.equals("..")
        || name.length() > 255
        || name.chars().anyMatch(c -> c == '/' || c < 0x20 || c == 0x7f)) {
      throw new IllegalArgumentException("not usable as a " + what + ": '" + name + "'");
    }
    return name;
  }
}
