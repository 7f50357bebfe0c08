package dev.berth.daemon;

import dev.berth.mom.Isolation;
import dev.berth.mom.os.cgroup.CgroupConfig;
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
      defaultValue = "berth",
      description = "Levels below the parent cgroup; each mom adds its node name (berth/NODE).")
  String root;

  @Option(
      names = "--cgroup-parent",
      paramLabel = "SPEC",
      description =
          "Parent cgroup: /PATH for every hierarchy or memory=/a,cpuset=/b,unified=/c"
              + " (default: the mom's own cgroup in each).")
  String parent;

  /** The isolation of the mom of {@code node}. */
  Isolation isolation(String node) {
    return Isolation.open(
        new CgroupConfig(
            CgroupConfig.Mode.parse(mode),
            root + "/" + node,
            parent == null ? java.util.Map.of() : CgroupConfig.parseParents(parent)));
  }
}
