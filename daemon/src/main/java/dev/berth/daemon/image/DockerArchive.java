package dev.berth.daemon.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an image out of a {@code docker save} (or {@code podman save}) archive: {@code
 * manifest.json} names the config and the layers' tar files. The config is named by its digest
 * ({@code HEX.json}, or {@code blobs/sha256/HEX} since Docker 25), and lists the digest of each
 * layer's uncompressed tar ({@code rootfs.diff_ids}): both are checked.
 */
final class DockerArchive {
  private static final int MAX_DOCUMENT = 8 << 20;

  /** A config's name carries its digest: HEX.json, or blobs/sha256/HEX. */
  private static final Pattern CONFIG_NAME =
      Pattern.compile("(?:.*/)?(?:blobs/sha256/)?([0-9a-f]{64})(?:\\.json)?");

  private DockerArchive() {}

  /** Whether {@code files} look like a docker-save archive (they have a manifest.json). */
  static boolean is(ImageFiles files) throws IOException {
    return files.has("manifest.json");
  }

  static LayeredImage read(ImageFiles files, Consumer<String> warn) throws IOException {
    try {
      return readManifest(files, warn);
    } catch (IllegalArgumentException e) {
      throw new IOException(files.describe("manifest.json") + ": " + e.getMessage(), e);
    }
  }

  private static LayeredImage readManifest(ImageFiles files, Consumer<String> warn)
      throws IOException {
    List<Object> images =
        Json.array(
            Json.parse(
                new String(files.read("manifest.json", MAX_DOCUMENT), StandardCharsets.UTF_8)),
            "manifest.json");
    if (images.size() != 1) {
      throw new IOException(
          files.describe("manifest.json")
              + " lists "
              + images.size()
              + " images; save the one to import on its own");
    }
    Map<String, Object> image = Json.object(images.get(0), "the image in manifest.json");
    String configPath = Json.string(image.get("Config"), "the image's Config");
    Matcher name = CONFIG_NAME.matcher(configPath);
    if (!name.matches()) {
      throw new IOException(
          files.describe(configPath)
              + ": the config's name is not its digest, so it cannot be checked");
    }
    byte[] configBytes = files.read(configPath, MAX_DOCUMENT);
    new Digest(name.group(1))
        .verify(Digest.sha256().digest(configBytes), files.describe(configPath));
    Map<String, Object> config =
        Json.object(
            Json.parse(new String(configBytes, StandardCharsets.UTF_8)), "the image config");
    Map<String, Object> rootfs = Json.object(config.get("rootfs"), "the config's rootfs");
    List<Object> diffIds = Json.array(rootfs.get("diff_ids"), "the config's rootfs.diff_ids");
    List<Object> paths = Json.array(image.get("Layers"), "the image's Layers");
    if (paths.size() != diffIds.size()) {
      throw new IOException(
          files.describe("manifest.json")
              + " lists "
              + paths.size()
              + " layers, the config "
              + diffIds.size());
    }
    List<Layer> layers = new ArrayList<>();
    for (int i = 0; i < paths.size(); i++) {
      String what = "layer " + (i + 1) + " of " + paths.size();
      String path = Json.string(paths.get(i), what);
      Digest tarDigest = Digest.parse(Json.string(diffIds.get(i), what + "'s diff_id"), what);
      layers.add(
          new Layer(
              what + " (" + tarDigest + ")",
              files,
              path,
              null,
              -1,
              tarDigest,
              Layer.Compression.DETECT));
    }
    return new LayeredImage(List.copyOf(layers), ImageConfig.read(config, warn));
  }
}
