package dev.berth.tools.qsub;

import dev.berth.client.GnuOptions;
import dev.berth.client.Invocation;
import dev.berth.core.BerthVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * sbatch's options as Slurm 22.05 knows them (pyxis's container options among them), read as its
 * getopt_long reads them ({@link GnuOptions}: the first word that is no option is the script, then
 * its arguments). Options Berth does not honour yet are known by name, so that they are refused as
 * such ({@link #HONOURED}) rather than taken for typing errors.
 */
final class SbatchOptions {
  private static final List<GnuOptions.Option> KNOWN = new ArrayList<>();

  private static void known(String name, char letter, GnuOptions.Arg arg) {
    KNOWN.add(new GnuOptions.Option(name, letter, arg));
  }

  static {
    GnuOptions.Arg r = GnuOptions.Arg.REQUIRED;
    GnuOptions.Arg n = GnuOptions.Arg.NONE;
    GnuOptions.Arg o = GnuOptions.Arg.OPTIONAL;
    known("account", 'A', r);
    known("acctg-freq", (char) 0, r);
    known("array", 'a', r);
    known("batch", (char) 0, r);
    known("bb", (char) 0, r);
    known("bbf", (char) 0, r);
    known("begin", 'b', r);
    known("chdir", 'D', r);
    known("cluster-constraint", (char) 0, r);
    known("clusters", 'M', r);
    known("comment", (char) 0, r);
    known("constraint", 'C', r);
    known("container", (char) 0, r);
    known("contiguous", (char) 0, n);
    known("core-spec", 'S', r);
    known("cores-per-socket", (char) 0, r);
    known("cpu-freq", (char) 0, r);
    known("cpus-per-gpu", (char) 0, r);
    known("cpus-per-task", 'c', r);
    known("deadline", (char) 0, r);
    known("delay-boot", (char) 0, r);
    known("dependency", 'd', r);
    known("distribution", 'm', r);
    known("error", 'e', r);
    known("exclude", 'x', r);
    known("exclusive", (char) 0, o);
    known("export", (char) 0, r);
    known("export-file", (char) 0, r);
    known("extra-node-info", 'B', r);
    known("get-user-env", (char) 0, o);
    known("gid", (char) 0, r);
    known("gpu-bind", (char) 0, r);
    known("gpu-freq", (char) 0, r);
    known("gpus", 'G', r);
    known("gpus-per-node", (char) 0, r);
    known("gpus-per-socket", (char) 0, r);
    known("gpus-per-task", (char) 0, r);
    known("gres", (char) 0, r);
    known("gres-flags", (char) 0, r);
    known("help", 'h', n);
    known("hint", (char) 0, r);
    known("hold", 'H', n);
    known("ignore-pbs", (char) 0, n);
    known("input", 'i', r);
    known("job-name", 'J', r);
    known("kill-on-invalid-dep", (char) 0, r);
    known("licenses", 'L', r);
    known("mail-type", (char) 0, r);
    known("mail-user", (char) 0, r);
    known("mcs-label", (char) 0, r);
    known("mem", (char) 0, r);
    known("mem-bind", (char) 0, r);
    known("mem-per-cpu", (char) 0, r);
    known("mem-per-gpu", (char) 0, r);
    known("mincpus", (char) 0, r);
    known("network", (char) 0, r);
    known("nice", (char) 0, o);
    known("no-kill", 'k', o);
    known("no-requeue", (char) 0, n);
    known("nodefile", 'F', r);
    known("nodelist", 'w', r);
    known("nodes", 'N', r);
    known("ntasks", 'n', r);
    known("ntasks-per-core", (char) 0, r);
    known("ntasks-per-gpu", (char) 0, r);
    known("ntasks-per-node", (char) 0, r);
    known("ntasks-per-socket", (char) 0, r);
    known("open-mode", (char) 0, r);
    known("output", 'o', r);
    known("overcommit", 'O', n);
    known("oversubscribe", 's', n);
    known("parsable", (char) 0, n);
    known("partition", 'p', r);
    known("power", (char) 0, r);
    known("prefer", (char) 0, r);
    known("priority", (char) 0, r);
    known("profile", (char) 0, r);
    known("propagate", (char) 0, o);
    known("qos", 'q', r);
    known("quiet", 'Q', n);
    known("reboot", (char) 0, n);
    known("requeue", (char) 0, n);
    known("reservation", (char) 0, r);
    known("signal", (char) 0, r);
    known("sockets-per-node", (char) 0, r);
    known("spread-job", (char) 0, n);
    known("switches", (char) 0, r);
    known("test-only", (char) 0, n);
    known("thread-spec", (char) 0, r);
    known("threads-per-core", (char) 0, r);
    known("time", 't', r);
    known("time-min", (char) 0, r);
    known("tmp", (char) 0, r);
    known("uid", (char) 0, r);
    known("usage", (char) 0, n);
    known("use-min-nodes", (char) 0, n);
    known("verbose", 'v', n);
    known("version", 'V', n);
    known("wait", 'W', n);
    known("wait-all-nodes", (char) 0, r);
    known("wckey", (char) 0, r);
    known("wrap", (char) 0, r);
    // pyxis, the container plugin the seed's users run
    known("container-image", (char) 0, r);
    known("container-mounts", (char) 0, r);
    known("container-workdir", (char) 0, r);
    known("container-name", (char) 0, r);
    known("container-save", (char) 0, r);
    known("container-mount-home", (char) 0, n);
    known("no-container-mount-home", (char) 0, n);
    known("container-remap-root", (char) 0, n);
    known("no-container-remap-root", (char) 0, n);
    known("container-entrypoint", (char) 0, n);
    known("no-container-entrypoint", (char) 0, n);
    known("container-writable", (char) 0, n);
    known("container-readonly", (char) 0, n);
    known("container-env", (char) 0, r);
  }

  /** What Berth's sbatch honours so far (docs/slurm.md); every other known option is refused. */
  static final java.util.Set<String> HONOURED =
      java.util.Set.of(
          "account",
          "array",
          "begin",
          "chdir",
          "container-env",
          "container-image",
          "container-mounts",
          "container-name",
          "container-readonly",
          "container-remap-root",
          "container-workdir",
          "container-writable",
          "cpus-per-task",
          "dependency",
          "error",
          "exclusive",
          "export",
          "gpus",
          "gpus-per-node",
          "gpus-per-task",
          "gres",
          "help",
          "hold",
          "ignore-pbs",
          "job-name",
          "mail-type",
          "mail-user",
          "mem",
          "mem-per-cpu",
          "nodes",
          "ntasks",
          "ntasks-per-node",
          "no-container-entrypoint",
          "no-container-mount-home",
          "no-container-remap-root",
          "output",
          "parsable",
          "partition",
          "quiet",
          "time",
          "usage",
          "version",
          "wrap");

  private static final GnuOptions OPTIONS = new GnuOptions("sbatch", KNOWN);

  private SbatchOptions() {}

  /** The option of this long name. */
  static GnuOptions.Option named(String name) {
    return OPTIONS.named(name);
  }

  /**
   * Reads {@code words} as getopt_long does for sbatch (options first, {@code +}): the options,
   * then from the first other word on the operands.
   *
   * @throws SbatchException an unknown or ambiguous option, or a value missing or not allowed, in
   *     getopt's words, exit 255
   */
  static GnuOptions.Parsed parse(List<String> words) throws SbatchException {
    return parse(OPTIONS, words);
  }

  /**
   * {@code words} read by {@code options} (sbatch's, salloc's, srun's), getopt's words on error.
   */
  static GnuOptions.Parsed parse(GnuOptions options, List<String> words) throws SbatchException {
    try {
      return options.parse(words);
    } catch (GnuOptions.UsageException e) {
      throw new SbatchException(SbatchException.BAD_OPTION, e.getMessage());
    }
  }

  /**
   * {@code --help}, {@code --usage} or {@code --version} among {@code cmd}'s, answered: the exit
   * status; empty when none was given.
   */
  static OptionalInt answered(Invocation inv, GnuOptions.Parsed cmd, String usage) {
    for (GnuOptions.Given g : cmd.options()) {
      switch (g.option().name()) {
        case "version" -> {
          inv.out().println("berth " + BerthVersion.NUMBER);
          return OptionalInt.of(0);
        }
        case "usage", "help" -> {
          inv.out().println(usage);
          return OptionalInt.of(0);
        }
        default -> {}
      }
    }
    return OptionalInt.empty();
  }
}
