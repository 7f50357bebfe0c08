package dev.berth.tools.qsub;

import dev.berth.client.Connector;
import dev.berth.client.GnuOptions;
import dev.berth.client.Invocation;
import dev.berth.tools.qsub.os.ProcessTerminal;
import dev.berth.tools.qsub.session.Terminal;
import java.util.List;
import java.util.OptionalInt;

/**
 * {@code salloc [options] [command [args...]]}: an interactive allocation, as Slurm's salloc with
 * {@code use_interactive_step} makes one: the nodes sbatch's options ask for, and the command (or
 * the owner's login shell) on a terminal on the first of them, in the job, where {@code srun} runs
 * its steps in the allocation. The allocation ends when the command does; its exit status is
 * salloc's. Says what it does in Slurm's words on standard error (Granted, Relinquishing job
 * allocation); refuses what it does not honour by name.
 */
public final class Salloc {
  static final String USAGE =
      "Usage: salloc [OPTIONS...] [command [args...]]\n"
          + "Berth's salloc: `salloc --help` and docs/slurm.md say which options it honours.";

  private Salloc() {}

  public static int run(Invocation inv) {
    return run(inv, SubmitContext.of(inv), Connector.SERVER, new ProcessTerminal(inv.in()));
  }

  static int run(Invocation inv, SubmitContext ctx, Connector connector, Terminal terminal) {
    try {
      GnuOptions.Parsed cmd = SbatchOptions.parse(AllocationOptions.SALLOC, inv.args());
      OptionalInt answered = SbatchOptions.answered(inv, cmd, USAGE);
      if (answered.isPresent()) {
        return answered.getAsInt();
      }
      SbatchJob.Input in =
          new SbatchJob.Input(
              AllocationOptions.SALLOC_COMMAND,
              List.of(),
              cmd.options(),
              ctx,
              "interactive",
              inv.args(),
              Allocation.shellWords(cmd.operands()));
      return Allocation.run(inv, connector, terminal, in, true, "Job submit/allocate failed");
    } catch (SbatchException e) {
      inv.err().println(e.lines("salloc"));
      return e.exit();
    }
  }
}
