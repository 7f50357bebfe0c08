package dev.berth.daemon.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OCI layouts and docker-save archives read into layers, and each layer's bytes checked against its
 * digest as it is applied.
 */
class LayeredSourcesTest {
  @TempDir Path dir;
  final List<String> warnings = new ArrayList<>();

  static List<TestLayer> twoLayers() {
    return List.of(
        new TestLayer().file("etc/os-release", "ID=test\n").file("etc/old", "o"),
        new TestLayer().whiteout("etc", "old").file("srv/app/run", "r"));
  }

  /** Applies the image's layers to a fresh tree, as the import does, and returns the tree. */
  private Path unpack(ImageFiles files, LayeredImage image) throws IOException {
    Path root = Files.createTempDirectory(dir, "root");
    RootTree tree = new RootTree(root);
    LayerApplier applier = new LayerApplier(tree, new UnpackLimits(1 << 20, 100));
    for (Layer layer : image.layers()) {
      try (LayerReader reader = new LayerReader(layer)) {
        applier.apply(new TarArchiveInputStream(reader.tar(), "UTF-8"), layer.what());
        reader.finish();
      }
    }
    files.close();
    return root;
  }

  @Test
  void readsAnOciLayoutInADirectoryAndInATar() throws IOException {
    Path layout = ImageLayouts.ociLayout(dir.resolve("oci"), twoLayers());
    ImageFiles files = new DirectoryFiles(layout);
    LayeredImage image = OciLayout.read(files, warnings::add);
    assertEquals(2, image.layers().size());
    assertEquals(Layer.Compression.GZIP, image.layers().get(0).compression());
    assertTrue(image.layers().get(1).what().startsWith("layer 2 of 2 (sha256:"));
    assertEquals(
        List.of("PATH=/usr/local/bin:/usr/bin:/bin", "GREETING=hello world"), image.config().env());
    assertEquals("/srv/app", image.config().workingDir());
    Path root = unpack(files, image);
    assertEquals("ID=test\n", Files.readString(root.resolve("etc/os-release")));
    assertFalse(Files.exists(root.resolve("etc/old")));

    Path tar = dir.resolve("oci.tar");
    try (var out = Files.newOutputStream(tar);
        var archive = new TarArchiveOutputStream(out, "UTF-8")) {
      try (var walk = Files.walk(layout)) {
        for (Path p : walk.filter(Files::isRegularFile).toList()) {
          ImageLayouts.member(archive, "./" + layout.relativize(p), Files.readAllBytes(p));
        }
      }
    }
    ImageSource source = ImageSource.parse(tar.toString());
    assertEquals(ImageSource.Kind.OCI, source.kind());
    assertEquals("oci", source.defaultName());
    ImageFiles archived = source.open();
    assertEquals(
        "ID=test\n",
        Files.readString(
            unpack(archived, source.read(archived, warnings::add)).resolve("etc/os-release")));
    assertTrue(warnings.isEmpty(), warnings.toString());
  }

  @Test
  void readsADockerSaveArchive() throws IOException {
    Path archive = ImageLayouts.dockerArchive(dir.resolve("app.tar"), twoLayers());
    ImageSource source = ImageSource.parse(archive.toString());
    assertEquals(ImageSource.Kind.DOCKER_ARCHIVE, source.kind());
    assertEquals("app", source.defaultName());
    ImageFiles files = source.open();
    LayeredImage image = source.read(files, warnings::add);
    assertEquals(Layer.Compression.DETECT, image.layers().get(0).compression());
    assertEquals("/srv/app", image.config().workingDir());
    Path root = unpack(files, image);
    assertEquals("r", Files.readString(root.resolve("srv/app/run")));
    assertFalse(Files.exists(root.resolve("etc/old")));
  }

  @Test
  void aLayerThatDoesNotMatchItsDigestFails() throws IOException {
    Path layout = ImageLayouts.ociLayout(dir.resolve("oci"), twoLayers());
    ImageFiles files = new DirectoryFiles(layout);
    LayeredImage image = OciLayout.read(files, warnings::add);
    Layer first = image.layers().get(0);
    Path blob = layout.resolve(first.path());
    byte[] changed = Files.readAllBytes(blob);
    changed[9] ^= 1; // gzip's "operating system" byte: the same files, another blob
    Files.write(blob, changed);
    String why = assertThrows(IOException.class, () -> unpack(files, image)).getMessage();
    assertTrue(why.startsWith("layer 1 of 2 (sha256:"), why);
    assertTrue(why.contains(" is corrupt or was changed: its content has digest sha256:"), why);

    byte[] longer = Arrays.copyOf(changed, changed.length + 10);
    longer[9] ^= 1;
    Files.write(blob, longer); // the right bytes and ten more
    IOException size = assertThrows(IOException.class, () -> unpack(files, image));
    assertTrue(
        size.getMessage()
            .contains(
                "is corrupt or was changed: it has "
                    + longer.length
                    + " bytes, the manifest says "
                    + changed.length),
        size.getMessage());
  }

  @Test
  void aDigestMismatchIsReportedOnceTheLayerIsRead() throws IOException {
    TestLayer good = new TestLayer().file("a", "1");
    Path blobFile = dir.resolve("blob");
    Files.write(blobFile, good.gzip());
    Digest wrong = Digest.of("something else".getBytes(StandardCharsets.UTF_8));
    Layer layer =
        new Layer(
            "layer 1 of 1",
            new DirectoryFiles(dir),
            "blob",
            wrong,
            good.gzip().length,
            null,
            Layer.Compression.GZIP);
    String why =
        assertThrows(
                IOException.class,
                () -> unpack(new DirectoryFiles(dir), new LayeredImage(List.of(layer), null)))
            .getMessage();
    assertTrue(
        why.startsWith(
            "layer 1 of 1 ("
                + blobFile
                + ") is corrupt or was changed: its content has digest sha256:"),
        why);
    assertTrue(why.endsWith(", not " + wrong), why);
  }

  @Test
  void aDockerLayerIsCheckedAgainstItsDiffId() throws IOException {
    List<TestLayer> layers = twoLayers();
    Path archive = ImageLayouts.dockerArchive(dir.resolve("app.tar"), layers);
    ImageFiles files = ArchiveFiles.open(archive);
    LayeredImage image = DockerArchive.read(files, warnings::add);
    Layer second = image.layers().get(1);
    Layer lying =
        new Layer(
            second.what(),
            files,
            second.path(),
            null,
            -1,
            Digest.of(layers.get(0).tar()),
            Layer.Compression.DETECT);
    String why =
        assertThrows(
                IOException.class,
                () -> unpack(files, new LayeredImage(List.of(image.layers().get(0), lying), null)))
            .getMessage();
    assertTrue(why.contains(", uncompressed, is corrupt or was changed"), why);
  }

  @Test
  void zstdAndUnknownLayerTypesAreRefusedClearly() throws IOException {
    Path layout = ImageLayouts.ociLayout(dir.resolve("oci"), twoLayers());
    for (String type :
        List.of(
            "application/vnd.oci.image.layer.v1.tar+zstd", "application/vnd.example.squashfs")) {
      rewriteManifest(layout, m -> m.replace("application/vnd.oci.image.layer.v1.tar+gzip", type));
      String why =
          assertThrows(
                  IOException.class,
                  () -> OciLayout.read(new DirectoryFiles(layout), warnings::add))
              .getMessage();
      if (type.endsWith("zstd")) {
        assertTrue(why.contains("layer 1 of 2 (sha256:"), why);
        assertTrue(
            why.contains(
                "is zstd-compressed (" + type + "), which berth image import does not read"),
            why);
        assertTrue(why.contains("--dest-compress-format gzip"), why);
      } else {
        assertTrue(
            why.contains("has media type '" + type + "', which berth image import does not read"),
            why);
      }
      ImageLayouts.ociLayout(layout, twoLayers());
    }
    // A docker archive's layer is told by its first bytes.
    Path zstd = dir.resolve("zstd");
    Files.write(zstd, new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0, 0, 0});
    Layer layer =
        new Layer(
            "layer 1 of 1",
            new DirectoryFiles(dir),
            "zstd",
            null,
            -1,
            null,
            Layer.Compression.DETECT);
    assertTrue(
        assertThrows(IOException.class, () -> new LayerReader(layer))
            .getMessage()
            .contains("zstd-compressed"));
  }

  /** Rewrites the manifest of the layout's index, keeping the index's descriptor right. */
  private static void rewriteManifest(Path layout, java.util.function.UnaryOperator<String> change)
      throws IOException {
    String index = Files.readString(layout.resolve("index.json"));
    String oldDigest = index.replaceAll(".*\"digest\":\"(sha256:[0-9a-f]{64})\".*", "$1");
    Path old = layout.resolve(Digest.parse(oldDigest, "test").blobPath());
    byte[] manifest = change.apply(Files.readString(old)).getBytes(StandardCharsets.UTF_8);
    Digest digest = ImageLayouts.blob(layout, manifest);
    Files.writeString(
        layout.resolve("index.json"),
        "{\"schemaVersion\":2,\"manifests\":["
            + ImageLayouts.descriptor(
                "application/vnd.oci.image.manifest.v1+json", digest, manifest.length)
            + "]}");
  }

  @Test
  void anIndexForSeveralPlatformsGivesThisMachines() throws IOException {
    Path layout = ImageLayouts.ociLayout(dir.resolve("oci"), twoLayers());
    String index = Files.readString(layout.resolve("index.json"));
    String ours = index.substring(index.indexOf("[{") + 1, index.lastIndexOf("}]") + 1);
    String mine =
        ours.replace(
            "}",
            ",\"platform\":{\"os\":\"linux\",\"architecture\":\""
                + OciLayout.architecture()
                + "\"}}");
    String other =
        ImageLayouts.descriptor(
                "application/vnd.oci.image.manifest.v1+json", Digest.of(new byte[1]), 1)
            .replace("}", ",\"platform\":{\"os\":\"linux\",\"architecture\":\"s390x\"}}");
    Files.writeString(
        layout.resolve("index.json"),
        "{\"schemaVersion\":2,\"manifests\":[" + other + "," + mine + "]}");
    assertEquals(2, OciLayout.read(new DirectoryFiles(layout), warnings::add).layers().size());

    Files.writeString(
        layout.resolve("index.json"),
        "{\"schemaVersion\":2,\"manifests\":[" + other + "," + other + "]}");
    String why =
        assertThrows(
                IOException.class, () -> OciLayout.read(new DirectoryFiles(layout), warnings::add))
            .getMessage();
    assertTrue(why.contains("index.json lists 2 images, 0 of them for linux/"), why);
  }

  @Test
  void aDigestCannotNameAPathOutsideTheBlobs() throws IOException {
    Path layout = ImageLayouts.ociLayout(dir.resolve("oci"), twoLayers());
    Files.writeString(
        layout.resolve("index.json"),
        "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
            + "\"digest\":\"sha256:../../../etc/passwd\",\"size\":10}]}");
    String why =
        assertThrows(
                IOException.class, () -> OciLayout.read(new DirectoryFiles(layout), warnings::add))
            .getMessage();
    assertTrue(why.contains("only sha256:<64 hex digits> is read"), why);
  }

  @Test
  void anArchiveWithTwoImagesOrAChangedConfigIsRefused() throws IOException {
    Path archive = ImageLayouts.dockerArchive(dir.resolve("app.tar"), twoLayers());
    // Two images.
    Path two = dir.resolve("two.tar");
    try (ArchiveFiles files = ArchiveFiles.open(archive);
        var out = Files.newOutputStream(two);
        var tar = new TarArchiveOutputStream(out)) {
      String manifest = new String(files.read("manifest.json", 1 << 20), StandardCharsets.UTF_8);
      String entry = manifest.substring(1, manifest.length() - 1);
      ImageLayouts.member(
          tar, "manifest.json", ("[" + entry + "," + entry + "]").getBytes(StandardCharsets.UTF_8));
    }
    try (ArchiveFiles files = ArchiveFiles.open(two)) {
      assertTrue(
          assertThrows(IOException.class, () -> DockerArchive.read(files, warnings::add))
              .getMessage()
              .endsWith("manifest.json lists 2 images; save the one to import on its own"));
    }
    // A config whose content is not what its name says.
    Path changed = dir.resolve("changed.tar");
    try (ArchiveFiles files = ArchiveFiles.open(archive);
        var out = Files.newOutputStream(changed);
        var tar = new TarArchiveOutputStream(out)) {
      String manifest = new String(files.read("manifest.json", 1 << 20), StandardCharsets.UTF_8);
      String config = manifest.replaceAll(".*\"Config\":\"([^\"]+)\".*", "$1");
      ImageLayouts.member(tar, "manifest.json", manifest.getBytes(StandardCharsets.UTF_8));
      ImageLayouts.member(
          tar,
          config,
          "{\"config\":{\"Env\":[\"EVIL=1\"]},\"rootfs\":{\"diff_ids\":[]}}"
              .getBytes(StandardCharsets.UTF_8));
    }
    try (ArchiveFiles files = ArchiveFiles.open(changed)) {
      assertTrue(
          assertThrows(IOException.class, () -> DockerArchive.read(files, warnings::add))
              .getMessage()
              .contains("is corrupt or was changed"));
    }
  }

  @Test
  void theConfigGivesTheEnvironmentAndWorkingDirectory() {
    ImageConfig c =
        ImageConfig.read(
            Json.object(
                Json.parse(
                    "{\"config\":{\"Env\":[\"A=1\",\"B=two words\",\"BROKEN\",\"C=x\\ny\"],"
                        + "\"WorkingDir\":\"relative\"}}"),
                "config"),
            warnings::add);
    assertEquals(List.of("A=1", "B=two words"), c.env());
    assertNull(c.workingDir());
    assertEquals(3, warnings.size(), warnings.toString());
    assertTrue(warnings.get(1).contains("'C=x\\ny' is not KEY=VALUE on one line"), warnings.get(1));
    warnings.clear();
    ImageConfig empty =
        ImageConfig.read(
            Json.object(Json.parse("{\"config\":{\"WorkingDir\":\"\"}}"), "c"), warnings::add);
    assertNull(empty.workingDir());
    assertTrue(warnings.isEmpty(), "Docker's empty WorkingDir is no working directory");
  }
}
