package dev.berth.daemon.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How an import's source and the data directory are found from what the user gives. */
class ImageSourceTest {
  @TempDir Path dir;

  @Test
  void aPrefixForcesTheKindAndWithoutOneTheContentTellsIt() throws IOException {
    Path rootfs = Files.createDirectory(dir.resolve("rootfs"));
    Path layout = ImageLayouts.ociLayout(dir.resolve("ubuntu-oci"), List.of(new TestLayer()));
    Path archive = ImageLayouts.dockerArchive(dir.resolve("app.tar"), List.of(new TestLayer()));
    assertEquals(
        new ImageSource(ImageSource.Kind.DIRECTORY, rootfs), ImageSource.parse(rootfs.toString()));
    assertEquals(
        new ImageSource(ImageSource.Kind.OCI, layout), ImageSource.parse(layout.toString()));
    assertEquals(
        new ImageSource(ImageSource.Kind.DOCKER_ARCHIVE, archive),
        ImageSource.parse(archive.toString()));
    assertEquals(ImageSource.Kind.DIRECTORY, ImageSource.parse("dir:" + layout).kind());
    assertEquals(ImageSource.Kind.OCI, ImageSource.parse("oci:" + rootfs).kind());
    assertEquals(ImageSource.Kind.DOCKER_ARCHIVE, ImageSource.parse("docker-archive:x.tar").kind());
    assertEquals("ubuntu-oci", ImageSource.parse(layout + "/").defaultName());
    assertEquals("app", ImageSource.parse(archive.toString()).defaultName());
  }

  @Test
  void registriesAndOddNamesAreRefusedWithAWayOut() throws IOException {
    String why =
        assertThrows(IllegalArgumentException.class, () -> ImageSource.parse("docker://ubuntu"))
            .getMessage();
    assertTrue(why.contains("reads no registry; save the image to a file first"), why);
    assertTrue(
        assertThrows(IOException.class, () -> ImageSource.parse(dir.resolve("none").toString()))
            .getMessage()
            .endsWith("none: no such file or directory"));
    Path spaced = Files.createDirectory(dir.resolve("my image"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> ImageSource.parse(spaced.toString()).defaultName())
            .getMessage()
            .endsWith("; name the image with --name"));
    Path notTar = Files.writeString(dir.resolve("x.tar.gz"), "not a tar");
    assertThrows(IOException.class, () -> ImageSource.parse(notTar.toString()));
  }

  @Test
  void theDataDirectoryComesFromTheEnvironment() {
    assertEquals(
        Path.of("/data/b"),
        DataDirectory.resolve(
                Map.of("BERTH_DATA_PATH", "/data/b", "XDG_DATA_HOME", "/x", "HOME", "/home/a"))
            .root());
    assertEquals(
        Path.of("/x/berth"),
        DataDirectory.resolve(Map.of("XDG_DATA_HOME", "/x", "HOME", "/home/a")).root());
    assertEquals(
        Path.of("/home/a/.local/share/berth"),
        DataDirectory.resolve(Map.of("XDG_DATA_HOME", "relative", "HOME", "/home/a")).root());
    assertThrows(
        IllegalArgumentException.class,
        () -> DataDirectory.resolve(Map.of("BERTH_DATA_PATH", "data", "HOME", "/home/a")));
  }

  @Test
  void namesAreFileNamesWithoutSurprises() {
    for (String good : List.of("ubuntu", "nvidia+pytorch+21.04-py3", "a_b.c")) {
      assertEquals(good, DataDirectory.checkName(good));
    }
    for (String bad : List.of("", ".hidden", "-x", "a/b", "..", "a b", "a\nb", "x".repeat(201))) {
      assertThrows(IllegalArgumentException.class, () -> DataDirectory.checkName(bad), bad);
    }
  }

  @Test
  void createsItsDirectoriesPrivate() throws IOException {
    DataDirectory data = new DataDirectory(dir.resolve("a/b")).create();
    for (Path p : List.of(data.root(), data.images(), data.containers())) {
      assertEquals(
          "rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(p)),
          p.toString());
    }
  }
}
