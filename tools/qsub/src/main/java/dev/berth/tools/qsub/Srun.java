package dev.berth.tools.qsub;

import dev.berth.client.Connector;
import dev.berth.client.GnuOptions;
import dev.berth.client.Invocation;
import dev.berth.tools.qsub.os.ProcessTerminal;
import dev.berth.tools.qsub.session.Terminal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code srun [options] command [args...]} outside a job, as Slurm's srun: allocates (an
 * interactive job with sbatch's options, {@link Allocation}), runs the step there and releases the
 * allocation when it ends. The step is the job-side srun's (tools/tm): {@code -n} tasks over the
 * allocation, each in the job's cgroup and container, their output back on srun's; with {@code
 * --pty} the command alone, on a terminal (pyxis's {@code srun --container-image=... --pty bash}).
 * Inside a job the job-side srun runs instead; ops/bin/srun picks.
 *
 * <p>Exit status: the step's (srun's in the job), 255 for a bad option, 1 when nothing ran.
 */
public final class Srun {
  static final String USAGE =
      "Usage: srun [OPTIONS...] executable [args...]\n"
          + "Berth's srun: `srun --help` and docs/slurm.md say which options it honours.";

  /** The options the step takes too: srun's own in the job, given again as they were. */
  private static final List<String> STEP =
      List.of(
          "ntasks",
          "nodes",
          "ntasks-per-node",
          "cpus-per-task",
          "label",
          "unbuffered",
          "cpu-bind",
          "mpi");

  private static final Set<String> QUIET_BINDINGS = Set.of("q", "quiet", "none", "no");

  /** --mpi's types the step takes: it is served PMI-1 and PMIx whichever is named. */
  private static final Set<String> MPI_TYPES = Set.of("none", "pmi2", "pmix", "pmix_v3", "pmix_v4");

  private Srun() {}

  public static int run(Invocation inv) {
    return run(inv, SubmitContext.of(inv), Connector.SERVER, new ProcessTerminal(inv.in()));
  }

  static int run(Invocation inv, SubmitContext ctx, Connector connector, Terminal terminal) {
    try {
      GnuOptions.Parsed cmd = SbatchOptions.parse(AllocationOptions.SRUN, inv.args());
      OptionalInt answered = SbatchOptions.answered(inv, cmd, USAGE);
      if (answered.isPresent()) {
        return answered.getAsInt();
      }
      if (cmd.operands().isEmpty()) {
        throw new SbatchException(
            SbatchException.FAILED, "srun: fatal: No command given to execute.");
      }
      Map<String, String> given = new java.util.LinkedHashMap<>();
      cmd.options().forEach(g -> given.put(g.option().name(), g.value()));
      checkStep(given);
      String command;
      if (given.containsKey("pty")) {
        if (given.containsKey("ntasks") && !given.get("ntasks").equals("1")) {
          throw SbatchException.failed(
              "--pty with more than one task is not supported by Berth's srun yet");
        }
        command = Allocation.shellWords(cmd.operands()); // on the job's terminal itself
      } else {
        List<String> step = new ArrayList<>();
        for (GnuOptions.Given g : cmd.options()) {
          if (STEP.contains(g.option().name())) {
            GnuOptions.Option o = g.option();
            step.add("--" + o.name() + (o.arg() == GnuOptions.Arg.NONE ? "" : "=" + g.value()));
          }
        }
        step.add("--");
        step.addAll(cmd.operands());
        // by the tools' path, which a container has too and a login profile does not reset
        command = "\"${BERTH_TOOLS:+$BERTH_TOOLS/}srun\" " + Allocation.shellWords(step);
      }
      Path program = Path.of(cmd.operands().get(0)).getFileName();
      SbatchJob.Input in =
          new SbatchJob.Input(
              AllocationOptions.SRUN_COMMAND,
              List.of(),
              cmd.options(),
              ctx,
              program == null ? "srun" : program.toString(),
              inv.args(),
              command);
      return Allocation.run(inv, connector, terminal, in, false, "Unable to allocate resources");
    } catch (SbatchException e) {
      inv.err().println(e.lines("srun"));
      return e.exit();
    }
  }

  /** What the step in the job would refuse, refused before anything is allocated. */
  private static void checkStep(Map<String, String> given) throws SbatchException {
    String mpi = given.get("mpi");
    if (mpi != null && !MPI_TYPES.contains(mpi)) {
      throw SbatchException.failed(
          "--mpi="
              + mpi
              + " is not supported by Berth's srun: every step is served PMI-1 (MPICH's programs)"
              + " and PMIx (Open MPI's); --mpi takes none, pmi2, pmix, pmix_v3 and pmix_v4");
    }
    String bind = given.get("cpu-bind");
    if (bind != null && !QUIET_BINDINGS.containsAll(List.of(bind.split(",")))) {
      throw SbatchException.failed(
          "--cpu-bind="
              + bind
              + " is not supported by Berth's srun yet (q, quiet and none are: each task may use"
              + " every CPU the job has on its node)");
    }
  }
}
