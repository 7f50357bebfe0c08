package dev.berth.daemon.image;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code berth image import|create|list|remove}: a user's container images as squashfs files made
 * without a registry or root, and named containers unpacked from them.
 */
@Command(
    name = "image",
    // --help on every image command
    mixinStandardHelpOptions = true,
    scope = CommandLine.ScopeType.INHERIT,
    description =
        "Container images: import one into a squashfs file, unpack it into a named container,"
            + " list and remove them. Runs as the user; files go to $BERTH_DATA_PATH, else"
            + " $XDG_DATA_HOME/berth, else ~/.local/share/berth.",
    subcommands = {
      ImportCommand.class,
      CreateCommand.class,
      ListCommand.class,
      RemoveCommand.class
    })
public final class ImageCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
