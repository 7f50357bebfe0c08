package dev.berth.daemon.image;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Images written the way skopeo (an OCI layout) and docker save (an archive) write them, from
 * layers of {@link TestLayer}.
 */
final class ImageLayouts {
  static final String ENV =
      "\"Env\":[\"PATH=/usr/local/bin:/usr/bin:/bin\",\"GREETING=hello world\"]";

  private ImageLayouts() {}

  /** An image config with the test environment and working directory and these diff_ids. */
  static String config(List<TestLayer> layers) {
    List<String> diffIds = new ArrayList<>();
    for (TestLayer layer : layers) {
      diffIds.add("\"" + Digest.of(layer.tar()) + "\"");
    }
    return "{\"architecture\":\""
        + OciLayout.architecture()
        + "\",\"os\":\"linux\",\"config\":{"
        + ENV
        + ",\"WorkingDir\":\"/srv/app\"},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":["
        + String.join(",", diffIds)
        + "]}}";
  }

  /**
   * An OCI layout in {@code dir} of gzip layers: oci-layout, index.json, and the manifest, config
   * and layers as blobs.
   */
  static Path ociLayout(Path dir, List<TestLayer> layers) throws IOException {
    Files.createDirectories(dir.resolve("blobs/sha256"));
    Files.writeString(dir.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
    StringBuilder layerDescriptors = new StringBuilder();
    for (TestLayer layer : layers) {
      byte[] gz = layer.gzip();
      if (layerDescriptors.length() > 0) {
        layerDescriptors.append(',');
      }
      layerDescriptors.append(
          descriptor("application/vnd.oci.image.layer.v1.tar+gzip", blob(dir, gz), gz.length));
    }
    byte[] config = config(layers).getBytes(StandardCharsets.UTF_8);
    byte[] manifest =
        ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                + "\"config\":"
                + descriptor(
                    "application/vnd.oci.image.config.v1+json", blob(dir, config), config.length)
                + ",\"layers\":["
                + layerDescriptors
                + "]}")
            .getBytes(StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("index.json"),
        "{\"schemaVersion\":2,\"manifests\":["
            + descriptor(
                "application/vnd.oci.image.manifest.v1+json", blob(dir, manifest), manifest.length)
            + "]}");
    return dir;
  }

  static String descriptor(String mediaType, Digest digest, long size) {
    return "{\"mediaType\":\""
        + mediaType
        + "\",\"digest\":\""
        + digest
        + "\",\"size\":"
        + size
        + "}";
  }

  /** Writes {@code bytes} as a blob of the layout in {@code dir}. */
  static Digest blob(Path dir, byte[] bytes) throws IOException {
    Digest digest = Digest.of(bytes);
    Files.write(dir.resolve(digest.blobPath()), bytes);
    return digest;
  }

  /**
   * A docker-save archive: manifest.json, HEX.json for the config and ID/layer.tar for each layer;
   * the first layer gzip-compressed (as the containerd image store saves them), the others not.
   */
  static Path dockerArchive(Path file, List<TestLayer> layers) throws IOException {
    byte[] config = config(layers).getBytes(StandardCharsets.UTF_8);
    String configName = Digest.of(config).hex() + ".json";
    List<String> layerNames = new ArrayList<>();
    try (OutputStream out = Files.newOutputStream(file);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "UTF-8")) {
      for (int i = 0; i < layers.size(); i++) {
        String name = "layer" + i + "/layer.tar";
        layerNames.add("\"" + name + "\"");
        member(tar, name, i == 0 ? layers.get(i).gzip() : layers.get(i).tar());
      }
      member(tar, configName, config);
      member(
          tar,
          "manifest.json",
          ("[{\"Config\":\""
                  + configName
                  + "\",\"RepoTags\":[\"test:1\"],\"Layers\":["
                  + String.join(",", layerNames)
                  + "]}]")
              .getBytes(StandardCharsets.UTF_8));
    }
    return file;
  }

  static void member(TarArchiveOutputStream tar, String name, byte[] content) throws IOException {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(content.length);
    tar.putArchiveEntry(e);
    tar.write(content);
    tar.closeArchiveEntry();
  }
}
