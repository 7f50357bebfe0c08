package dev.berth.daemon;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code berth help [COMMAND [SUBCOMMAND...]]}: the help of a command at any depth ({@code berth
 * help kafka start}), where picocli's own help command takes one name and shows the first level's.
 */
@Command(name = "help", description = "Show the help of berth or of one of its commands.")
final class HelpCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "COMMAND", description = "The command, then its subcommands.")
  List<String> path = List.of();

  @Override
  public Integer call() {
    CommandLine command = spec.parent().commandLine();
    for (String name : path) {
      CommandLine sub = command.getSubcommands().get(name);
      if (sub == null) {
        command
            .getErr()
            .println(
                "berth help: no command "
                    + name
                    + " in "
                    + command.getCommandSpec().qualifiedName()
                    + "; its commands: "
                    + String.join(", ", command.getSubcommands().keySet()));
        return CommandLine.ExitCode.USAGE;
      }
      command = sub;
    }
    command.usage(spec.commandLine().getOut());
    return CommandLine.ExitCode.OK;
  }
}
