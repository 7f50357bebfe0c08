package dev.berth.daemon.image;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code berth image remove NAME...}: images and named containers removed. */
@Command(
    name = "remove",
    description =
        "Remove images (NAME or NAME.sqsh in DATA/images) and named containers. Each name is"
            + " tried; the exit status is 1 if one could not be removed.")
final class RemoveCommand implements Callable<Integer> {
  @Parameters(paramLabel = "NAME", arity = "1..*", description = "What to remove.")
  List<String> names;

  @Option(names = "--image", description = "Remove only images.")
  boolean image;

  @Option(names = "--container", description = "Remove only containers.")
  boolean container;

  @Override
  public Integer call() {
    if (image && container) {
      throw new IllegalArgumentException("--image and --container exclude each other");
    }
    ImageStore.Kind kind =
        image ? ImageStore.Kind.IMAGE : container ? ImageStore.Kind.CONTAINER : null;
    ImageStore store = new ImageStore(DataDirectory.resolve(System.getenv()));
    int status = 0;
    for (String name : names) {
      try {
        ImageStore.Item removed = store.remove(name, kind);
        System.out.println("removed " + removed.kind().word() + " " + removed.path());
      } catch (IOException e) {
        System.err.println("berth image remove: " + e.getMessage());
        status = 1;
      }
    }
    return status;
  }
}
