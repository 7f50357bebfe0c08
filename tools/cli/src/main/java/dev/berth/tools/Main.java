package dev.berth.tools;

import static java.util.Map.entry;

import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.core.BerthVersion;
import dev.berth.tools.help.CommandHelp;
import dev.berth.tools.jobctl.Qchkpt;
import dev.berth.tools.jobctl.Qdel;
import dev.berth.tools.jobctl.Qhold;
import dev.berth.tools.jobctl.Qmove;
import dev.berth.tools.jobctl.Qorder;
import dev.berth.tools.jobctl.Qrerun;
import dev.berth.tools.jobctl.Qrls;
import dev.berth.tools.jobctl.Qrun;
import dev.berth.tools.jobctl.Qsig;
import dev.berth.tools.momctl.Momctl;
import dev.berth.tools.pbsfs.Pbsfs;
import dev.berth.tools.pbsnodes.Pbsnodes;
import dev.berth.tools.qmgr.Qmgr;
import dev.berth.tools.qselect.Qselect;
import dev.berth.tools.qstat.Qstat;
import dev.berth.tools.qsub.Qalter;
import dev.berth.tools.qsub.Qsub;
import dev.berth.tools.qsub.Salloc;
import dev.berth.tools.qsub.Sbatch;
import dev.berth.tools.qsub.Srun;
import dev.berth.tools.resv.PbsRdel;
import dev.berth.tools.resv.PbsRstat;
import dev.berth.tools.resv.PbsRsub;
import dev.berth.tools.sacct.Sacct;
import dev.berth.tools.scancel.Scancel;
import dev.berth.tools.scontrol.Scontrol;
import dev.berth.tools.sinfo.Sinfo;
import dev.berth.tools.sprio.Sprio;
import dev.berth.tools.squeue.Squeue;
import dev.berth.tools.sshare.Sshare;
import dev.berth.tools.tracejob.Tracejob;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * The single entry point of Berth's command-line tools. The launcher script sets the system
 * property {@code berth.command} from the name it was called by ({@code qstat}, {@code qdel}, ...);
 * without it the first argument names the command ({@code berth-cli qstat -a}).
 */
public final class Main {
  /** The property the launcher sets to the name it was invoked as. */
  public static final String COMMAND_PROPERTY = "berth.command";

  /**
   * The commands that read {@code --version} among their own options, as Torque's do (qstat and
   * pbsnodes print it on standard error, qsub and qalter beside {@code --about}).
   */
  private static final Set<String> OWN_VERSION =
      Set.of(
          "qstat",
          "pbsnodes",
          "qsub",
          "qalter",
          "sbatch",
          "salloc",
          "srun",
          "squeue",
          "scancel",
          "sacct",
          "sinfo",
          "scontrol",
          "sprio",
          "sshare");

  private static final Map<String, Command> COMMANDS =
      helped(
          entry("qsub", Qsub::run),
          entry("qalter", Qalter::run),
          entry("qmgr", Qmgr::run),
          entry("qstat", Qstat::run),
          entry("qdel", Qdel::run),
          entry("qhold", Qhold::run),
          entry("qrls", Qrls::run),
          entry("qsig", Qsig::run),
          entry("qselect", Qselect::run),
          entry("qrun", Qrun::run),
          entry("qrerun", Qrerun::run),
          entry("qmove", Qmove::run),
          entry("qorder", Qorder::run),
          entry("qchkpt", Qchkpt::run),
          entry("momctl", Momctl::run),
          entry("pbsnodes", Pbsnodes::run),
          entry("tracejob", Tracejob::run),
          entry("pbsfs", Pbsfs::run),
          entry("pbs_rsub", PbsRsub::run),
          entry("pbs_rstat", PbsRstat::run),
          entry("pbs_rdel", PbsRdel::run),
          entry("sbatch", Sbatch::run),
          entry("salloc", Salloc::run),
          entry("srun", Srun::run),
          entry("squeue", Squeue::run),
          entry("scancel", Scancel::run),
          entry("sacct", Sacct::run),
          entry("sinfo", Sinfo::run),
          entry("scontrol", Scontrol::run),
          entry("sprio", Sprio::run),
          entry("sshare", Sshare::run));

  /**
   * Each command, answering {@code --help} with its part of the documentation (CommandHelp), and
   * {@code --version} alone with Berth's version where it does not read that itself.
   */
  @SafeVarargs
  private static Map<String, Command> helped(Map.Entry<String, Command>... commands) {
    Map<String, Command> helped = new HashMap<>();
    for (Map.Entry<String, Command> c : commands) {
      String name = c.getKey();
      Command command = c.getValue();
      boolean ownVersion = OWN_VERSION.contains(name);
      helped.put(
          name,
          invocation -> {
            if (CommandHelp.asked(invocation.args())) {
              return CommandHelp.print(name, invocation);
            }
            if (!ownVersion && invocation.args().equals(List.of("--version"))) {
              invocation.out().println("Version: " + BerthVersion.NUMBER);
              return ExitCodes.OK;
            }
            return command.run(invocation);
          });
    }
    return Map.copyOf(helped);
  }

  private Main() {}

  /** The command name under which ops/bin/berth-cli-archive trains the class-data archive. */
  static final String TRAIN = "berth-cli-train";

  public static void main(String[] args) {
    String command = System.getProperty(COMMAND_PROPERTY);
    int status =
        TRAIN.equals(command)
            ? Training.run(COMMANDS)
            : dispatch(command, args, COMMANDS, System.err);
    System.out.flush();
    System.exit(status);
  }

  /** The registered commands by name. */
  public static Map<String, Command> commands() {
    return COMMANDS;
  }

  /**
   * Runs the command named by {@code property} (a name or a path whose last element is the name),
   * or, when it is absent, by the first argument.
   */
  static int dispatch(
      String property, String[] args, Map<String, Command> commands, PrintStream err) {
    String name;
    String[] rest;
    if (property != null && !property.isBlank()) {
      name = baseName(property.trim());
      rest = args;
    } else if (args.length > 0) {
      name = baseName(args[0]);
      rest = Arrays.copyOfRange(args, 1, args.length);
    } else {
      err.println("usage: berth-cli COMMAND [ARGS...]; commands: " + names(commands));
      return ExitCodes.USAGE;
    }
    Command command = commands.get(name);
    if (command == null) {
      err.println("berth-cli: unknown command '" + name + "'; commands: " + names(commands));
      return ExitCodes.USAGE;
    }
    Invocation invocation = Invocation.ofProcess(name, rest);
    OptionalInt again = repeatAfter(name, invocation.args());
    for (; ; ) {
      int status = command.run(invocation);
      if (status != ExitCodes.OK || again.isEmpty()) {
        return status;
      }
      System.out.flush();
      try {
        Thread.sleep(again.getAsInt() * 1000L); // until a signal ends it, as Slurm's squeue -i
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return status;
      }
    }
  }

  /**
   * How many seconds after a successful run of {@code name} with {@code args} it runs again (squeue
   * -i), for whoever runs it: this process, or the native client for a run the server hosts.
   */
  public static OptionalInt repeatAfter(String name, List<String> args) {
    return name.equals("squeue") ? Squeue.repeatAfter(args) : OptionalInt.empty();
  }

  private static String baseName(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.substring(slash + 1);
  }

  private static String names(Map<String, Command> commands) {
    return String.join(" ", new TreeSet<>(commands.keySet()));
  }
}
