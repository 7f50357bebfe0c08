package dev.berth.daemon;

import dev.berth.mom.Isolation;
import dev.berth.mom.NodeMetrics;
import dev.berth.mom.os.cgroup.CgroupConfig;
import java.io.IOException;
import picocli.CommandLine.Option;

/** Where a host's moms put their jobs' cgroups (used only by jobs with cgroup_enable True). */
final class CgroupOptions {
  @Option(
      names = "--cgroup-mode",
      defaultValue = "auto",
      description = "v1, v2 or auto (v2 when its cpuset and memory controllers are usable).")
  String mode;

  @Option(
      names = "--cgroup-root",
      description =
          "Levels below the parent cgroup; each mom adds its node name (ROOT/NODE). Default:"
              + " berth for the default home, berth-HASH for any other, so that two"
              + " installations on one host never share one.")
  String root;

  @Option(
      names = "--cgroup-parent",
      paramLabel = "SPEC",
      description =
          "Parent cgroup: /PATH for every hierarchy or memory=/a,cpuset=/b,unified=/c"
              + " (default: the mom's own cgroup in each).")
  String parent;

  @Option(
      names = "--no-cgroups",
      description =
          "Run jobs without cgroups, as a daemon that is not root always does: a job with"
              + " cgroup_enable is refused, CPUs are not pinned and memory is only polled.")
  boolean none;

  /**
   * Why this daemon makes no cgroups, if it makes none: told so, or not root (making and delegating
   * cgroups, and holding the cgroup lock in /run/berth, need root).
   */
  java.util.Optional<String> withoutCgroups() {
    String self = System.getProperty("user.name");
    if (!self.equals("root")) {
      return java.util.Optional.of("berth runs as " + self + ", not root, and makes none");
    }
    return none ? java.util.Optional.of("started with --no-cgroups") : java.util.Optional.empty();
  }

  /**
   * The isolation of the mom of {@code node} of the installation in {@code home}, once this process
   * holds its cgroup root: a mom removes the cgroups it does not know of, so two moms must never
   * share one. Its cgroups are measured in {@code metrics}.
   */
  Isolation isolation(BerthHome home, boolean defaultHome, String node, NodeMetrics metrics)
      throws IOException {
    java.util.Optional<String> without = withoutCgroups();
    if (without.isPresent()) {
      return Isolation.none(without.get());
    }
    String level = (root != null ? root : home.cgroupRoot(defaultHome)) + "/" + node;
    CgroupRootLock.hold(level, parent);
    return Isolation.open(
        new CgroupConfig(
            CgroupConfig.Mode.parse(mode),
            level,
            parent == null ? java.util.Map.of() : CgroupConfig.parseParents(parent)),
        metrics);
  }
}
