package dev.berth.daemon.image;

import dev.berth.core.image.SquashfsImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.function.Consumer;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Turns an image source into a squashfs image file. A layered image is unpacked layer by layer into
 * a staging tree in the data directory, given the mount points and config files a job needs, and
 * squashed; a root file system directory is squashed as it is, with the mount points added as
 * pseudo files. mksquashfs writes a hidden partial file next to the output, which is checked and
 * then renamed into place, so a failure or an interrupt leaves neither a half image nor a staging
 * tree behind.
 */
final class Importer {
  private final DataDirectory data;
  private final UnpackLimits limits;
  private final Consumer<String> warn;

  Importer(DataDirectory data, UnpackLimits limits, Consumer<String> warn) {
    this.data = data;
    this.limits = limits;
    this.warn = warn;
  }

  /**
   * Imports {@code source} into the image file {@code output}, which must not exist unless {@code
   * replace}.
   */
  SquashfsImage.Header run(ImageSource source, Path output, boolean replace) throws IOException {
    Path out = output.toAbsolutePath();
    if (!replace && Files.exists(out, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(out + " exists; remove it first, or give --force");
    }
    data.create();
    try (Scratch scratch = new Scratch()) {
      Path partial =
          scratch.add(
              Files.createTempFile(out.getParent(), "." + out.getFileName() + ".", ".partial"));
      SquashfsTools tools = new SquashfsTools(scratch);
      if (source.kind() == ImageSource.Kind.DIRECTORY) {
        squashDirectory(source.path(), partial, scratch, tools);
      } else {
        squashLayers(source, partial, scratch, tools);
      }
      SquashfsImage.Header header = SquashfsImage.check(partial, Long.MAX_VALUE);
      // Readable like any new file: whether others reach it is the directory's to say.
      Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rw-r--r--"));
      if (replace) {
        Files.move(partial, out, StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.move(partial, out);
      }
      scratch.keep(partial);
      return header;
    }
  }

  private void squashLayers(ImageSource source, Path partial, Scratch scratch, SquashfsTools tools)
      throws IOException {
    Path stage = scratch.add(Files.createTempDirectory(data.root(), ".import-"));
    // The image's root directory is the staging directory: open to the container's users.
    Files.setPosixFilePermissions(stage, PosixFilePermissions.fromString("rwxr-xr-x"));
    RootTree tree = new RootTree(stage);
    LayerApplier applier = new LayerApplier(tree, limits);
    ImageConfig config;
    try (ImageFiles files = source.open()) {
      LayeredImage image = source.read(files, warn);
      for (Layer layer : image.layers()) {
        try (LayerReader reader = new LayerReader(layer)) {
          applier.apply(
              new TarArchiveInputStream(reader.tar(), StandardCharsets.UTF_8.name()), layer.what());
          reader.finish();
        }
      }
      config = image.config();
    }
    if (applier.skipped() > 0) {
      warn.accept("left out " + applier.skipped() + " device nodes, FIFOs and entries under /dev");
    }
    MountPoints.ensure(tree, warn);
    config.writeTo(tree);
    tree.finish();
    tools.squash(stage, partial, List.of(), null);
  }

  private void squashDirectory(Path directory, Path partial, Scratch scratch, SquashfsTools tools)
      throws IOException {
    Path root = directory.toRealPath();
    if (!Files.isDirectory(root)) {
      throw new IOException(directory + ": not a directory");
    }
    var permissions = Files.getPosixFilePermissions(root);
    if (!permissions.contains(PosixFilePermission.OTHERS_READ)
        || !permissions.contains(PosixFilePermission.OTHERS_EXECUTE)) {
      throw new IOException(
          root
              + " is closed to other users ("
              + PosixFilePermissions.toString(permissions)
              + "), and would make the image's / closed to its users: chmod 755 it first");
    }
    List<String> excluded = DirectoryScan.excluded(root, limits);
    Path excludeFile = null;
    if (!excluded.isEmpty()) {
      excludeFile = scratch.add(Files.createTempFile(data.root(), ".import-", ".exclude"));
      Files.write(excludeFile, excluded, StandardCharsets.UTF_8);
      warn.accept(
          "left out " + excluded.size() + " device nodes, FIFOs, sockets and entries under /dev");
    }
    tools.squash(root, partial, MountPoints.pseudoDefinitions(root, warn), excludeFile);
  }
}
