package dev.berth.mom.job;

import dev.berth.core.image.UserData;
import dev.berth.mom.os.ContainerSpec;
import dev.berth.proto.Container;
import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.Variable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a job's container comes from on this node, from its -W container_* attributes: image names
 * and named containers live in the owner's data directory ({@code $BERTH_DATA_PATH}, else {@code
 * $XDG_DATA_HOME/berth}, else {@code ~/.local/share/berth}, as {@code berth image} keeps them),
 * {@code $HOME} in a mount source is the owner's home here, and the job gets its TMPDIR, Berth's
 * tools and its GPUs inside.
 */
public final class ContainerPlan {
  /** NVIDIA's control devices, which CUDA opens besides the GPUs (none gives another's GPU). */
  public static final List<Path> NVIDIA_CONTROL =
      List.of(
          Path.of("/dev/nvidiactl"), Path.of("/dev/nvidia-uvm"), Path.of("/dev/nvidia-uvm-tools"));

  private ContainerPlan() {}

  /**
   * The node's paths for the job's container, or empty for a job without one.
   *
   * @param home the owner's home on this node
   * @param cache the owner's cache directory on this node
   * @param tmpdir the job's TMPDIR here
   * @param shared host paths every process of the job needs inside (Berth's tools, the task
   *     manager's socket directory)
   * @param gpus the job's GPUs on this node
   * @param present which of NVIDIA's control devices exist on this node
   */
  public static Optional<ContainerSpec> of(
      Job job,
      String home,
      Path cache,
      Path tmpdir,
      List<Path> shared,
      List<Gpu> gpus,
      List<Path> present) {
    if (!job.hasContainer()) {
      return Optional.empty();
    }
    Container c = job.getContainer();
    Path data = dataDirectory(job, home);
    Path image = null;
    if (!c.getImage().isEmpty()) {
      image =
          c.getImage().contains("/")
              ? Path.of(c.getImage())
              : data.resolve("images").resolve(c.getImage() + ".sqsh");
    }
    Path named = c.getName().isEmpty() ? null : data.resolve("containers").resolve(c.getName());
    List<String> mounts = new ArrayList<>();
    for (Container.Mount m : c.getMountsList()) {
      mounts.add(
          expandHome(m.getSource(), home) + ":" + m.getTarget() + (m.getReadOnly() ? ":ro" : ""));
    }
    List<Path> binds = new ArrayList<>();
    binds.add(tmpdir);
    binds.addAll(shared);
    List<Path> devices = new ArrayList<>();
    gpus.forEach(g -> devices.add(Path.of(g.getDevice())));
    if (gpus.stream().anyMatch(g -> g.getMajor() == JobGpus.NVIDIA_MAJOR)) {
      devices.addAll(present.stream().filter(NVIDIA_CONTROL::contains).toList());
    }
    // the driver's files, for GPUs the driver named (nvidia-smi gave their UUIDs)
    List<String> uuids =
        gpus.stream()
            .filter(g -> g.getMajor() == JobGpus.NVIDIA_MAJOR && !g.getUuid().isEmpty())
            .map(Gpu::getUuid)
            .toList();
    return Optional.of(
        new ContainerSpec(
            image,
            cache,
            named,
            tmpdir,
            c.getWorkdir().isEmpty() ? null : c.getWorkdir(),
            c.getWritable(),
            c.getRemapRoot(),
            mounts,
            binds,
            devices,
            uuids.isEmpty() ? null : String.join(",", uuids),
            c.getEnvList()));
  }

  /**
   * The directories the job needs inside for Berth's tools: the tools' own ({@code pbsdsh}, {@code
   * pbs_tmrsh}), and where those scripts find the native berth-tm they run (an installed
   * distribution's {@code libexec}, or a checkout's build), as they look for it.
   */
  public static List<Path> toolDirectories(Path tools, java.util.function.Predicate<Path> exists) {
    List<Path> dirs = new ArrayList<>(List.of(tools));
    for (Path native_ :
        List.of(
            tools.resolve("../libexec").normalize(),
            tools.resolve("../../tools/tm/target/native").normalize())) {
      if (exists.test(native_.resolve("berth-tm"))) {
        dirs.add(native_);
        break;
      }
    }
    return dirs;
  }

  /** The owner's data directory, as berth image finds it, from the job's environment. */
  static Path dataDirectory(Job job, String home) {
    return UserData.directory(name -> variable(job, name), home);
  }

  /** The job's last value of variable {@code name}, or null. */
  private static String variable(Job job, String name) {
    String value = null;
    for (Variable v : job.getVariablesList()) {
      if (v.getName().equals(name)) {
        value = v.getValue();
      }
    }
    return value;
  }

  private static String expandHome(String source, String home) {
    if (source.startsWith("${HOME}")) {
      return home + source.substring("${HOME}".length());
    }
    if (source.startsWith("$HOME")) {
      return home + source.substring("$HOME".length());
    }
    return source;
  }
}
