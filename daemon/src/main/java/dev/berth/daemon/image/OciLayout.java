package dev.berth.daemon.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads an image out of an OCI image layout ({@code oci-layout}, {@code index.json}, {@code
 * blobs/sha256/...}), as skopeo, buildah, podman and {@code docker buildx --output type=oci} write
 * it, in a directory or a tar archive. The index may list one image, or one per platform (then the
 * one for this machine is taken). Every document read is checked against the digest and size its
 * descriptor gives.
 */
final class OciLayout {
  static final String ZSTD_ADVICE =
      "which berth image import does not read: copy the image with gzip layers first (skopeo copy"
          + " --dest-compress-format gzip ...)";

  /** OCI asks writers to keep manifests under 4 MiB; configs with a long history are larger. */
  private static final int MAX_DOCUMENT = 8 << 20;

  private static final int MAX_INDEX_DEPTH = 4;

  private static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";
  private static final String DOCKER_LIST =
      "application/vnd.docker.distribution.manifest.list.v2+json";
  private static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
  private static final String DOCKER_MANIFEST =
      "application/vnd.docker.distribution.manifest.v2+json";

  private final ImageFiles files;
  private final Consumer<String> warn;

  private OciLayout(ImageFiles files, Consumer<String> warn) {
    this.files = files;
    this.warn = warn;
  }

  /** Whether {@code files} look like an OCI layout (they have an {@code oci-layout} file). */
  static boolean is(ImageFiles files) throws IOException {
    return files.has("oci-layout");
  }

  static LayeredImage read(ImageFiles files, Consumer<String> warn) throws IOException {
    try {
      return new OciLayout(files, warn).read();
    } catch (IllegalArgumentException e) {
      throw new IOException(files.describe("") + ": " + e.getMessage(), e);
    }
  }

  private LayeredImage read() throws IOException {
    Map<String, Object> layout =
        Json.object(document(files.read("oci-layout", MAX_DOCUMENT)), "oci-layout");
    Object version = layout.get("imageLayoutVersion");
    if (!(version instanceof String v) || !v.startsWith("1.")) {
      throw new IOException(
          files.describe("oci-layout") + ": layout version " + version + ", not 1.x");
    }
    Map<String, Object> index =
        Json.object(document(files.read("index.json", MAX_DOCUMENT)), "index.json");
    Descriptor chosen = choose(index, "index.json");
    for (int depth = 0; chosen.isIndex(); depth++) {
      if (depth == MAX_INDEX_DEPTH) {
        throw new IOException("indexes nested more than " + MAX_INDEX_DEPTH + " deep");
      }
      chosen = choose(Json.object(document(blob(chosen)), chosen.what()), chosen.what());
    }
    Map<String, Object> manifest = Json.object(document(blob(chosen)), chosen.what());
    Descriptor config =
        Descriptor.of(manifest.get("config"), "the image config of " + chosen.digest());
    ImageConfig imageConfig =
        ImageConfig.read(Json.object(document(blob(config)), config.what()), warn);
    List<Object> layerList = Json.array(manifest.get("layers"), "the layers of " + chosen.what());
    List<Layer> layers = new ArrayList<>();
    for (int i = 0; i < layerList.size(); i++) {
      Descriptor d =
          Descriptor.of(layerList.get(i), "layer " + (i + 1) + " of " + layerList.size() + " (%s)");
      layers.add(
          new Layer(
              d.what(), files, d.digest().blobPath(), d.digest(), d.size(), null, compression(d)));
    }
    return new LayeredImage(List.copyOf(layers), imageConfig);
  }

  /** The image of an index: its only one, or the only one for this machine's platform. */
  private Descriptor choose(Map<String, Object> index, String where) {
    List<Descriptor> images = new ArrayList<>();
    List<Object> manifests = Json.array(index.get("manifests"), "the manifests of " + where);
    for (int i = 0; i < manifests.size(); i++) {
      Descriptor d = Descriptor.of(manifests.get(i), "manifest %s in " + where);
      if (d.isIndex() || d.isManifest()) {
        images.add(d);
      }
    }
    if (images.size() == 1) {
      return images.get(0);
    }
    String platform = "linux/" + architecture();
    List<Descriptor> matching = images.stream().filter(d -> platform.equals(d.platform())).toList();
    if (matching.size() == 1) {
      return matching.get(0);
    }
    throw new IllegalArgumentException(
        where
            + " lists "
            + images.size()
            + " images, "
            + matching.size()
            + " of them for "
            + platform
            + "; copy the one to import into a layout of its own");
  }

  /** This machine's architecture as OCI names it. */
  static String architecture() {
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    return switch (arch) {
      case "x86_64", "amd64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      default -> arch;
    };
  }

  private static Layer.Compression compression(Descriptor d) throws IOException {
    String type = d.mediaType();
    if (type.endsWith("zstd")) {
      throw new IOException(d.what() + " is zstd-compressed (" + type + "), " + ZSTD_ADVICE);
    }
    return switch (type) {
      case "application/vnd.oci.image.layer.v1.tar",
          "application/vnd.oci.image.layer.nondistributable.v1.tar",
          "application/vnd.docker.image.rootfs.diff.tar" ->
          Layer.Compression.NONE;
      case "application/vnd.oci.image.layer.v1.tar+gzip",
          "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
          "application/vnd.docker.image.rootfs.diff.tar.gzip",
          "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip" ->
          Layer.Compression.GZIP;
      default ->
          throw new IOException(
              d.what()
                  + " has media type '"
                  + EntryPath.show(type)
                  + "', which berth image import does not read (it reads tar and tar+gzip layers)");
    };
  }

  /** The blob a descriptor names, checked against its digest and size. */
  private byte[] blob(Descriptor d) throws IOException {
    if (d.size() > MAX_DOCUMENT) {
      throw new IOException(d.what() + " is " + d.size() + " bytes, more than a document may be");
    }
    byte[] bytes = files.read(d.digest().blobPath(), MAX_DOCUMENT);
    if (bytes.length != d.size()) {
      throw new IOException(
          d.what()
              + " is corrupt or was changed: it has "
              + bytes.length
              + " bytes, its descriptor says "
              + d.size());
    }
    d.digest().verify(Digest.sha256().digest(bytes), d.what());
    return bytes;
  }

  private static Object document(byte[] bytes) {
    return Json.parse(new String(bytes, StandardCharsets.UTF_8));
  }

  /** An OCI content descriptor: what a blob is, its digest and its size. */
  private record Descriptor(
      String what, String mediaType, Digest digest, long size, String platform) {
    /**
     * Reads a descriptor; {@code what} names it in messages, with {@code %s} standing for its
     * digest.
     */
    static Descriptor of(Object value, String what) {
      Map<String, Object> d = Json.object(value, what.replace("%s", "a descriptor"));
      String digestText =
          Json.string(d.get("digest"), what.replace("%s", "a descriptor") + "'s digest");
      String named = what.replace("%s", digestText);
      Digest digest = Digest.parse(digestText, named);
      long size = Json.number(d.get("size"), named + "'s size");
      if (size < 0) {
        throw new IllegalArgumentException(named + " has a negative size");
      }
      Object type = d.get("mediaType");
      String mediaType = type == null ? "" : Json.string(type, named + "'s media type");
      String platform = null;
      if (d.get("platform") != null) {
        Map<String, Object> p = Json.object(d.get("platform"), named + "'s platform");
        platform = p.get("os") + "/" + p.get("architecture");
      }
      return new Descriptor(named, mediaType, digest, size, platform);
    }

    boolean isIndex() {
      return mediaType.equals(OCI_INDEX) || mediaType.equals(DOCKER_LIST);
    }

    boolean isManifest() {
      return mediaType.equals(OCI_MANIFEST) || mediaType.equals(DOCKER_MANIFEST);
    }
  }
}
