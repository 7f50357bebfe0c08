package dev.berth.tools.pbsdsh;

import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.TmClient;
import dev.berth.client.TmException;
import dev.berth.proto.TmNodeList;
import dev.berth.tools.pbsdsh.Targets.Target;
import java.io.IOException;
import java.util.List;

/**
 * {@code pbsdsh [-c copies | -n node | -h host] [-o] [-s] [-u] [-v] program [args...]}: runs a
 * program on the nodes of the job it is called from, through the job's task manager. Task output
 * comes back to pbsdsh's own stdout and stderr, and pbsdsh exits with the worst task status; {@code
 * -o} starts the tasks with their output in the job's files and does not wait.
 */
public final class Pbsdsh {
  private static final List<String> FORWARDED = List.of("INT", "TERM");

  private Pbsdsh() {}

  public static int run(Invocation invocation) {
    return run(invocation, TmContext.DEFAULT);
  }

  public static int run(Invocation invocation, TmContext context) {
    PbsdshOptions options;
    try {
      options = PbsdshOptions.parse(invocation.args());
    } catch (Getopt.UsageException e) {
      invocation.error(e.getMessage());
      invocation.err().print(PbsdshOptions.USAGE);
      return ExitCodes.USAGE;
    }
    OutputRelay relay = new OutputRelay(invocation.out(), invocation.err());
    try (TmClient client = TaskManager.connect(invocation, relay)) {
      TmNodeList job = TaskManager.await(client.nodes());
      List<Target> targets = Targets.select(options, job);
      TaskRun run = new TaskRun(invocation, options, client);
      if (options.noWait()) {
        return run.startAll(targets);
      }
      SignalTrap.Installed trap = context.signals().install(FORWARDED, run::forward);
      try {
        return options.sequential() ? run.oneByOne(targets) : run.allAtOnce(targets);
      } finally {
        trap.close();
      }
    } catch (TaskManager.Unreachable | Targets.NoSuchTarget e) {
      invocation.error(e.getMessage());
      return 1;
    } catch (TmException | IOException e) {
      invocation.error("cannot get the job's nodes: " + TaskManager.describe(e));
      return 1;
    }
  }
}
