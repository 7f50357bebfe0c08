package dev.berth.tools.qsub;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * pyxis's {@code --container-*} options of sbatch as Berth's container attributes, which mean what
 * pyxis's mean (docs/containers.md): the image (a squashfs file, a relative path taken from
 * sbatch's directory, or the name of an image imported with {@code berth image}; Berth pulls
 * nothing from a registry, so {@code ubuntu:22.04} or {@code nvcr.io#nvidia/pytorch} is refused
 * with what to do instead), mounts ({@code SRC[:DST[:ro|rw]]}), working directory, a named
 * container, root remapping, a writable root, and the variables whose job values win over the
 * image's ({@code --container-env}). {@code --no-container-mount-home} and {@code
 * --no-container-entrypoint} are what Berth does anyway.
 */
final class PyxisOptions {
  private PyxisOptions() {}

  /** The container attributes {@code values} (sbatch's merged options) ask for. */
  static Map<String, String> attributes(Map<String, String> values, SubmitContext ctx)
      throws SbatchException {
    Map<String, String> a = new LinkedHashMap<>();
    if (values.containsKey("container-image")) {
      a.put("container_image", image(values.get("container-image"), ctx));
    }
    if (values.containsKey("container-mounts")) {
      a.put("container_mounts", mounts(values.get("container-mounts")));
    }
    if (values.containsKey("container-workdir")) {
      a.put("container_workdir", values.get("container-workdir"));
    }
    if (values.containsKey("container-name")) {
      a.put("container_name", name(values.get("container-name")));
    }
    if (values.containsKey("container-remap-root")) {
      a.put("container_remap_root", "True");
    }
    if (values.containsKey("container-writable")) {
      a.put("container_writable", "True");
    }
    if (values.containsKey("container-env")) {
      a.put("container_env", values.get("container-env"));
    }
    return a;
  }

  /**
   * A path (absolute; relative ones, as pyxis writes them with {@code ./} or ending in {@code
   * .sqsh}, from sbatch's directory) or an imported image's name; a registry reference is refused.
   */
  private static String image(String value, SubmitContext ctx) throws SbatchException {
    String v = value.strip();
    if (v.startsWith("/")) {
      return v;
    }
    if (v.startsWith("./") || v.startsWith("../") || v.endsWith(".sqsh")) {
      return Path.of(ctx.absolute(v)).normalize().toString();
    }
    if (v.contains(":") || v.contains("#") || v.contains("@") || v.contains("/") || v.isEmpty()) {
      throw SbatchException.failed(
          "--container-image="
              + value
              + ": Berth runs squashfs images, a file or a name imported with `berth image import`;"
              + " it pulls nothing from a registry (import the image first: docs/containers.md)");
    }
    return v;
  }

  /** pyxis's {@code SRC[:DST[:FLAGS]]} items as Berth's {@code SRC:DST[:ro]}. */
  private static String mounts(String value) throws SbatchException {
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      String[] parts = item.strip().split(":", -1);
      if (parts.length > 3 || parts[0].isEmpty()) {
        throw SbatchException.failed(
            "--container-mounts=" + value + ": invalid mount '" + item + "'");
      }
      String target = parts.length > 1 ? parts[1] : parts[0];
      String flags = parts.length > 2 ? parts[2].toLowerCase(Locale.ROOT) : "";
      if (!flags.isEmpty() && !flags.equals("ro") && !flags.equals("rw")) {
        throw SbatchException.failed(
            "--container-mounts="
                + value
                + ": mount flags '"
                + parts[2]
                + "' are not supported by Berth's sbatch yet (ro and rw are)");
      }
      items.add(parts[0] + ":" + target + (flags.equals("ro") ? ":ro" : ""));
    }
    return String.join(",", items);
  }

  /** A name, with pyxis's {@code :auto} (Berth's way: use it, or make it) and no other flag. */
  private static String name(String value) throws SbatchException {
    int colon = value.indexOf(':');
    if (colon < 0) {
      return value;
    }
    if (!value.substring(colon + 1).equals("auto")) {
      throw SbatchException.failed(
          "--container-name="
              + value
              + ": flags other than auto are not supported by Berth's sbatch yet");
    }
    return value.substring(0, colon);
  }
}
