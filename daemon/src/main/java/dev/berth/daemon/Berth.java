package dev.berth.daemon;

import dev.berth.core.BerthVersion;
import dev.berth.daemon.image.ImageCommand;
import dev.berth.server.journal.JournalException;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code berth} command: start, stop and inspect a Berth installation. */
@Command(
    name = "berth",
    mixinStandardHelpOptions = true,
    versionProvider = Berth.Version.class,
    description = "Start, stop and inspect a Berth cluster.",
    subcommands = {
      UpCommand.class,
      DownCommand.class,
      StatusCommand.class,
      ServeCommand.class,
      MomCommand.class,
      RelayCommand.class,
      JournalCommand.class,
      AccountingCommand.class,
      ReportCommand.class,
      KafkaCommand.class,
      CaCommand.class,
      CredentialCommand.class,
      SimulateCommand.class,
      WorkloadCommand.class,
      ImageCommand.class
    })
public final class Berth implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /**
   * The command tree, where every command and subcommand answers {@code --help} (and {@code -h})
   * with its options and {@code --version} (and {@code -V}) with Berth's version, and {@code berth
   * help COMMAND} shows a subcommand's help; {@code berth completion} prints their bash completion.
   */
  static CommandLine commandLine() {
    CommandLine berth = new CommandLine(new Berth());
    berth.addSubcommand("help", new HelpCommand());
    berth.addSubcommand("completion", new CompletionCommand());
    helped(berth, berth.getCommandSpec().version());
    return berth;
  }

  private static void helped(CommandLine command, String[] version) {
    CommandLine.Model.CommandSpec spec = command.getCommandSpec();
    if (!spec.mixinStandardHelpOptions()) {
      spec.mixinStandardHelpOptions(true); // picocli leaves it out where an option has the names
      spec.version(version);
    }
    for (CommandLine sub : command.getSubcommands().values()) {
      helped(sub, version);
    }
  }

  /** {@code --version}: Berth's one version number (BerthVersion). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {BerthVersion.named()};
    }
  }

  public static void main(String[] args) {
    CommandLine berth = commandLine();
    // A bad value found while running (a CPU list, a cgroup parent) is a usage error; a file or
    // journal that cannot be used (a missing credential, brokers away) a failure: either is one
    // line that says what to do, not a stack trace (that goes to the log at DEBUG).
    berth.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          boolean usage = e instanceof IllegalArgumentException;
          if (!usage && !(e instanceof JournalException || e instanceof java.io.IOException)) {
            throw e;
          }
          LoggerFactory.getLogger(Berth.class)
              .debug("berth {} failed", command.getCommandName(), e);
          command.getErr().println("berth " + command.getCommandName() + ": " + e.getMessage());
          return usage ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        });
    System.exit(berth.execute(args));
  }
}
