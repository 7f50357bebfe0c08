package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Picks the cgroup driver the configuration asks for. {@code auto} takes cgroup v2 where the parent
 * there offers the cpuset and memory controllers, else cgroup v1 where cpuset and memory
 * hierarchies are mounted, else fails naming what is missing.
 */
public final class Cgroups {
  private Cgroups() {}

  /** The driver for this process's mounts and cgroups. */
  public static CgroupDriver open(CgroupConfig config) throws IOException {
    return open(config, Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"));
  }

  /** The driver for the mounts in {@code mountinfo} and the own cgroups in {@code selfCgroup}. */
  public static CgroupDriver open(CgroupConfig config, Path mountinfo, Path selfCgroup)
      throws IOException {
    return open(config, Mounts.read(mountinfo, selfCgroup), Kernel.LINUX);
  }

  static CgroupDriver open(CgroupConfig config, Mounts mounts, Kernel kernel) throws IOException {
    return switch (config.mode()) {
      case V1 -> CgroupV1.open(config, mounts, kernel);
      case V2 -> CgroupV2.open(config, mounts, kernel);
      case AUTO -> auto(config, mounts, kernel);
    };
  }

  private static CgroupDriver auto(CgroupConfig config, Mounts mounts, Kernel kernel)
      throws IOException {
    List<String> why = new ArrayList<>();
    if (mounts.v2().isEmpty()) {
      why.add("no cgroup2 file system is mounted");
    } else {
      try {
        CgroupV2 v2 = CgroupV2.open(config, mounts, kernel);
        if (v2.controllers().containsAll(Set.of(CgroupV2.CPUSET, CgroupV2.MEMORY))) {
          return v2;
        }
        why.add(v2.describe());
      } catch (IOException e) {
        why.add(e.getMessage());
      }
    }
    if (CgroupV1.usable(mounts)) {
      return CgroupV1.open(config, mounts, kernel);
    }
    Set<String> v1 = new LinkedHashSet<>();
    mounts.all().stream().filter(m -> !m.v2()).forEach(m -> v1.addAll(m.options()));
    v1.removeIf(o -> o.equals("rw") || o.equals("ro") || o.contains("="));
    why.add(
        "cgroup v1 needs cpuset and memory hierarchies; mounted: "
            + (v1.isEmpty() ? "none" : v1.stream().collect(Collectors.joining(","))));
    throw new IOException("no usable cgroups: " + String.join("; ", why));
  }
}
