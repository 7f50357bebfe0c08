package dev.berth.daemon;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code berth completion}: a bash completion script for berth's commands, subcommands and options,
 * made from the command tree itself (picocli's AutoComplete), so it cannot miss one. The package
 * installs its output; {@code source <(berth completion)} works from a build.
 */
@Command(
    name = "completion",
    description = {
      "Print a bash completion script for berth's commands and options.",
      "Packages install it; from a build: source <(berth completion)."
    })
final class CompletionCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getOut().print(AutoComplete.bash("berth", spec.parent().commandLine()));
    spec.commandLine().getOut().flush();
    return CommandLine.ExitCode.OK;
  }
}
