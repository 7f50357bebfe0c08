package dev.berth.tools.qsub;

import dev.berth.client.LocalFiles;
import dev.berth.client.LocalFiles.Probe;
import dev.berth.core.image.SquashfsImage;
import dev.berth.proto.Attribute;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What qsub can know of a container job where it runs, as its caller: that the image exists, is
 * theirs to read and is a squashfs image, and that they can read every mount source. The node
 * checks again (the files may differ there, or change meanwhile); this spares a job that would only
 * fail there. An image given by name (found in the data directory the job's environment names on
 * the node) is left to the node.
 */
final class ContainerChecks {
  private ContainerChecks() {}

  /**
   * @param attributes the job's attributes as qsub sends them
   * @param env qsub's environment (HOME, for mount sources that start with $HOME)
   * @throws QsubException naming the attribute, the path and what is wrong
   */
  static void check(List<Attribute> attributes, Map<String, String> env, LocalFiles files)
      throws QsubException {
    Optional<Path> image = Optional.empty();
    List<Path> sources = new ArrayList<>();
    for (Attribute a : attributes) {
      switch (a.getName()) {
        case "container_image" -> image = imagePath(a.getValue().trim());
        case "container_mounts" -> sources.addAll(mountSources(a.getValue(), env));
        default -> {
          // not a container attribute
        }
      }
    }
    List<Path> paths = new ArrayList<>(sources);
    image.ifPresent(paths::add);
    if (paths.isEmpty()) {
      return;
    }
    Map<Path, Probe> probes = files.probe(paths);
    if (image.isPresent()) {
      checkImage(image.get(), probes.get(image.get()));
    }
    for (Path source : sources) {
      Probe p = probes.get(source);
      switch (p.kind()) {
        case MISSING -> throw new QsubException("container_mounts: " + source + " does not exist");
        case DENIED -> throw new QsubException("container_mounts: you cannot read " + source);
        case OTHER -> throw new QsubException("container_mounts: " + source + ": " + p.reason());
        case FILE, DIRECTORY -> {
          // mountable
        }
      }
    }
  }

  private static void checkImage(Path image, Probe p) throws QsubException {
    String what = "container_image " + image;
    switch (p.kind()) {
      case MISSING -> throw new QsubException(what + ": no such file");
      case DENIED -> throw new QsubException(what + ": you cannot read it");
      case DIRECTORY -> throw new QsubException(what + ": is a directory, not an image");
      case OTHER -> throw new QsubException(what + ": " + p.reason());
      case FILE -> {
        if (p.squashfsHead() == null) {
          throw new QsubException(what + ": not a squashfs image (make one with berth image)");
        }
        try {
          SquashfsImage.parse(ByteBuffer.wrap(p.squashfsHead()), p.size());
        } catch (IllegalArgumentException e) {
          throw new QsubException(what + ": " + e.getMessage());
        }
      }
    }
  }

  /**
   * The image's file when given as a path; an image name is left to the node, which looks for it in
   * the data directory the job's own environment names there.
   */
  private static Optional<Path> imagePath(String value) {
    return value.startsWith("/") ? Optional.of(Path.of(value)) : Optional.empty();
  }

  /** The sources of {@code SOURCE:TARGET[:ro]} items, $HOME expanded as the node does. */
  private static List<Path> mountSources(String value, Map<String, String> env) {
    List<Path> sources = new ArrayList<>();
    for (String item : value.split(",")) {
      String source = item.trim().split(":", -1)[0];
      String home = env.get("HOME");
      for (String prefix : List.of("${HOME}", "$HOME")) {
        if (source.startsWith(prefix) && home != null) {
          source = home + source.substring(prefix.length());
          break;
        }
      }
      if (source.startsWith("/") && !source.contains("$")) {
        sources.add(Path.of(source));
      }
    }
    return sources;
  }
}
