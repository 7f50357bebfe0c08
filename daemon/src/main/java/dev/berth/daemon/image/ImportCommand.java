package dev.berth.daemon.image;

import dev.berth.core.Sizes;
import dev.berth.core.image.SquashfsImage;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code berth image import SOURCE}: a container image into a squashfs file. */
@Command(
    name = "import",
    description =
        "Turn a container image into a squashfs image file: an OCI image layout (oci:PATH, a"
            + " directory or a tar of one), a docker save archive (docker-archive:FILE) or a"
            + " directory holding a root file system (dir:PATH). Without a prefix the kind is"
            + " told from what SOURCE holds.")
final class ImportCommand implements Callable<Integer> {
  @Parameters(paramLabel = "SOURCE", description = "The image to import.")
  String source;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "Write the image here (default: DATA/images/NAME.sqsh).")
  Path output;

  @Option(
      names = {"-n", "--name"},
      paramLabel = "NAME",
      description = "The image's name (default: SOURCE's file name without .tar).")
  String name;

  @Option(
      names = {"-f", "--force"},
      description = "Replace an existing image file.")
  boolean force;

  @Option(
      names = "--max-size",
      defaultValue = "64gb",
      paramLabel = "SIZE",
      description = "Refuse an image whose files hold more than this (default: ${DEFAULT-VALUE}).")
  String maxSize;

  @Option(
      names = "--max-entries",
      defaultValue = "2000000",
      paramLabel = "N",
      description =
          "Refuse an image with more files, directories and links (default: ${DEFAULT-VALUE}).")
  long maxEntries;

  @Override
  public Integer call() throws Exception {
    ImageSource from = ImageSource.parse(source);
    DataDirectory data = DataDirectory.resolve(System.getenv());
    Path file = output;
    if (file == null) {
      String imageName = name != null ? DataDirectory.checkName(strip(name)) : from.defaultName();
      file = data.image(imageName);
    }
    long started = System.nanoTime();
    SquashfsImage.Header header =
        new Importer(
                data,
                new UnpackLimits(Sizes.parseBytes(maxSize), maxEntries),
                warning -> System.err.println("berth image import: " + warning))
            .run(from, file, force);
    System.out.printf(
        "%s: %s (%d bytes), %d inodes, %s, imported in %.1f s%n",
        file.toAbsolutePath(),
        HumanBytes.of(header.fileSize()),
        header.fileSize(),
        header.inodes(),
        header.compression().word(),
        (System.nanoTime() - started) / 1e9);
    return 0;
  }

  private static String strip(String name) {
    return name.endsWith(DataDirectory.IMAGE_SUFFIX)
        ? name.substring(0, name.length() - DataDirectory.IMAGE_SUFFIX.length())
        : name;
  }
}
