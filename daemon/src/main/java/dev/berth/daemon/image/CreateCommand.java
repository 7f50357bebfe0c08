package dev.berth.daemon.image;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code berth image create IMAGE --name NAME}: an image unpacked into a named container. */
@Command(
    name = "create",
    description =
        "Unpack an image into the named container DATA/containers/NAME, a root file system of"
            + " your own that jobs may change.")
final class CreateCommand implements Callable<Integer> {
  @Parameters(
      paramLabel = "IMAGE",
      description =
          "An image file (a path with a /, or an existing file), or the name of an imported image.")
  String image;

  @Option(
      names = {"-n", "--name"},
      required = true,
      paramLabel = "NAME",
      description = "The container's name; it must not exist yet.")
  String name;

  @Override
  public Integer call() throws Exception {
    ImageStore store = new ImageStore(DataDirectory.resolve(System.getenv()));
    Path container = store.createContainer(store.findImage(image), name);
    System.out.println(container);
    return 0;
  }
}
