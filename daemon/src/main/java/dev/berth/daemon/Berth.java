package dev.berth.daemon;

import dev.berth.server.journal.JournalException;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code berth} command: start, stop and inspect a Berth installation. */
@Command(
    name = "berth",
    mixinStandardHelpOptions = true,
    version = "Berth 0.1.0",
    description = "Start, stop and inspect a Berth cluster.",
    subcommands = {
      UpCommand.class,
      DownCommand.class,
      StatusCommand.class,
      ServeCommand.class,
      MomCommand.class,
      JournalCommand.class,
      KafkaCommand.class
    })
public final class Berth implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  public static void main(String[] args) {
    CommandLine berth = new CommandLine(new Berth());
    // A bad value found while running (a CPU list, a cgroup parent) is a usage error, not a crash.
    berth.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          if (e instanceof JournalException) {
            // The journal cannot be opened (brokers away, refused, damaged): the message says
            // what to do; the stack is for developers.
            LoggerFactory.getLogger(Berth.class).debug("the journal failed", e);
            command.getErr().println("berth " + command.getCommandName() + ": " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
          }
          if (!(e instanceof IllegalArgumentException)) {
            throw e;
          }
          command.getErr().println("berth " + command.getCommandName() + ": " + e.getMessage());
          return CommandLine.ExitCode.USAGE;
        });
    System.exit(berth.execute(args));
  }
}
