package dev.berth.mom.os;

import java.nio.file.Path;
import java.util.List;

/**
 * What berth-starter needs to put a process into its container image (its {@code --container-*}
 * options): every path is the host's, and every one is used with the job owner's permissions.
 *
 * @param image the squashfs image, or null for a named container that exists
 * @param cache the owner's directory of unpacked images on this node
 * @param named a named container's root directory, made from the image when missing; or null
 * @param scratch where a writable container's changes go (the job's TMPDIR)
 * @param workdir the directory to start in inside, or null for the job's own, else the image's
 * @param mounts {@code SOURCE:TARGET[:ro]}, sources expanded
 * @param binds host paths the job needs at the same path inside (its TMPDIR, Berth's tools)
 * @param devices device files bound into the container's /dev under their own names (GPUs)
 * @param nvidia the job's NVIDIA GPUs by UUID, comma separated, whose driver files
 *     nvidia-container-cli puts into the container; null for none
 * @param hostEnv variables whose values the process brings win over the image's (pyxis's
 *     --container-env)
 */
public record ContainerSpec(
    Path image,
    Path cache,
    Path named,
    Path scratch,
    String workdir,
    boolean writable,
    boolean remapRoot,
    List<String> mounts,
    List<Path> binds,
    List<Path> devices,
    String nvidia,
    List<String> hostEnv) {
  public ContainerSpec {
    mounts = List.copyOf(mounts);
    binds = List.copyOf(binds);
    devices = List.copyOf(devices);
    hostEnv = List.copyOf(hostEnv);
  }

  /** This container, started in {@code workdir} (null: the process's own directory, if there). */
  public ContainerSpec startingIn(String workdir) {
    return new ContainerSpec(
        image, cache, named, scratch, workdir, writable, remapRoot, mounts, binds, devices, nvidia,
        hostEnv);
  }

  /** The starter's options for this container. */
  List<String> options() {
    List<String> argv = new java.util.ArrayList<>();
    add(argv, "--container-image", image);
    add(argv, "--container-cache", cache);
    add(argv, "--container-named", named);
    add(argv, "--container-scratch", scratch);
    if (workdir != null) {
      argv.addAll(List.of("--container-workdir", workdir));
    }
    if (writable) {
      argv.add("--container-writable");
    }
    if (remapRoot) {
      argv.add("--container-remap-root");
    }
    for (String name : hostEnv) {
      argv.addAll(List.of("--container-env", name));
    }
    mounts.forEach(m -> argv.addAll(List.of("--container-mount", m)));
    binds.forEach(b -> add(argv, "--container-bind", b));
    devices.forEach(d -> add(argv, "--container-device", d));
    if (nvidia != null) {
      argv.addAll(List.of("--container-nvidia", nvidia));
    }
    return argv;
  }

  private static void add(List<String> argv, String flag, Path value) {
    if (value != null) {
      argv.addAll(List.of(flag, value.toString()));
    }
  }
}
