package dev.berth.daemon.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * What {@code berth image import} reads, as its argument names it: an OCI image layout ({@code
 * oci:PATH}, a directory or a tar of one), a docker-save archive ({@code docker-archive:FILE}) or a
 * directory holding a root file system ({@code dir:PATH}). Without a prefix the kind is told from
 * what PATH holds. Registries are not read: images reach a cluster as files.
 */
record ImageSource(Kind kind, Path path) {
  enum Kind {
    OCI,
    DOCKER_ARCHIVE,
    DIRECTORY
  }

  static ImageSource parse(String text) throws IOException {
    if (text.contains("://")) {
      throw new IllegalArgumentException(
          "'"
              + EntryPath.show(text)
              + "': berth image import reads no registry; save the image to a file first"
              + " (docker save -o FILE, or skopeo copy docker://... oci:DIR) and import that");
    }
    for (Kind kind : Kind.values()) {
      String prefix = prefix(kind);
      if (text.startsWith(prefix)) {
        return new ImageSource(kind, Path.of(text.substring(prefix.length())));
      }
    }
    Path path = Path.of(text);
    if (Files.isDirectory(path)) {
      return new ImageSource(
          Files.isRegularFile(path.resolve("oci-layout")) ? Kind.OCI : Kind.DIRECTORY, path);
    }
    if (!Files.isRegularFile(path)) {
      throw new IOException(text + ": no such file or directory");
    }
    try (ArchiveFiles files = ArchiveFiles.open(path)) {
      if (DockerArchive.is(files)) {
        return new ImageSource(Kind.DOCKER_ARCHIVE, path);
      }
      if (OciLayout.is(files)) {
        return new ImageSource(Kind.OCI, path);
      }
    }
    throw new IOException(
        text + ": an archive with neither manifest.json (docker save) nor oci-layout (OCI)");
  }

  private static String prefix(Kind kind) {
    return switch (kind) {
      case OCI -> "oci:";
      case DOCKER_ARCHIVE -> "docker-archive:";
      case DIRECTORY -> "dir:";
    };
  }

  /** The name the image gets unless told: the source's file name without {@code .tar}. */
  String defaultName() {
    Path name = path.toAbsolutePath().normalize().getFileName();
    String text = name == null ? "" : name.toString();
    if (kind != Kind.DIRECTORY && text.endsWith(".tar")) {
      text = text.substring(0, text.length() - 4);
    }
    try {
      return DataDirectory.checkName(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + "; name the image with --name", e);
    }
  }

  /** The layered image the source holds (not for a directory). */
  LayeredImage read(ImageFiles files, Consumer<String> warn) throws IOException {
    return kind == Kind.DOCKER_ARCHIVE
        ? DockerArchive.read(files, warn)
        : OciLayout.read(files, warn);
  }

  /** The files of a layered source, to read the image from and close afterwards. */
  ImageFiles open() throws IOException {
    if (kind == Kind.OCI && Files.isDirectory(path)) {
      return new DirectoryFiles(path);
    }
    if (!Files.isRegularFile(path)) {
      throw new IOException(path + ": no such " + (kind == Kind.OCI ? "layout" : "archive"));
    }
    return ArchiveFiles.open(path);
  }
}
