package dev.berth.tools.qsub;

import dev.berth.client.GnuOptions;
import dev.berth.client.GnuOptions.Arg;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of Slurm 22.05's salloc and srun (with pyxis's container options), as their getopt
 * reads them: the first word that is no option is the command, then its arguments. Options Berth
 * does not honour yet are known by name, so that they are refused as such rather than taken for
 * typing errors. What the two honour is what makes an allocation ({@link SbatchJob} reads them as
 * it reads sbatch's) and, for srun, the step it runs there.
 */
final class AllocationOptions {
  private AllocationOptions() {}

  /** Options of both, each with its letter and argument. */
  private static final List<GnuOptions.Option> COMMON = new ArrayList<>();

  private static final List<GnuOptions.Option> SALLOC_ONLY = new ArrayList<>();
  private static final List<GnuOptions.Option> SRUN_ONLY = new ArrayList<>();

  private static void add(List<GnuOptions.Option> to, String name, char letter, Arg arg) {
    to.add(new GnuOptions.Option(name, letter, arg));
  }

  private static final char NONE = 0;

  static {
    Arg r = Arg.REQUIRED;
    Arg n = Arg.NONE;
    Arg o = Arg.OPTIONAL;
    List<GnuOptions.Option> c = COMMON;
    add(c, "account", 'A', r);
    add(c, "begin", 'b', r);
    add(c, "bb", NONE, r);
    add(c, "bbf", NONE, r);
    add(c, "cpus-per-task", 'c', r);
    add(c, "comment", NONE, r);
    add(c, "container", NONE, r);
    add(c, "cpu-freq", NONE, r);
    add(c, "delay-boot", NONE, r);
    add(c, "dependency", 'd', r);
    add(c, "deadline", NONE, r);
    add(c, "chdir", 'D', r);
    add(c, "gres", NONE, r);
    add(c, "gres-flags", NONE, r);
    add(c, "hold", 'H', n);
    add(c, "immediate", 'I', o);
    add(c, "job-name", 'J', r);
    add(c, "licenses", 'L', r);
    add(c, "clusters", 'M', r);
    add(c, "distribution", 'm', r);
    add(c, "mail-type", NONE, r);
    add(c, "mail-user", NONE, r);
    add(c, "mcs-label", NONE, r);
    add(c, "ntasks", 'n', r);
    add(c, "nice", NONE, o);
    add(c, "ntasks-per-node", NONE, r);
    add(c, "nodes", 'N', r);
    add(c, "overcommit", 'O', n);
    add(c, "power", NONE, r);
    add(c, "priority", NONE, r);
    add(c, "profile", NONE, r);
    add(c, "partition", 'p', r);
    add(c, "qos", 'q', r);
    add(c, "quiet", 'Q', n);
    add(c, "reboot", NONE, n);
    add(c, "oversubscribe", 's', n);
    add(c, "signal", NONE, r);
    add(c, "spread-job", NONE, n);
    add(c, "switches", NONE, r);
    add(c, "core-spec", 'S', r);
    add(c, "thread-spec", NONE, r);
    add(c, "time", 't', r);
    add(c, "time-min", NONE, r);
    add(c, "use-min-nodes", NONE, n);
    add(c, "verbose", 'v', n);
    add(c, "wckey", NONE, r);
    add(c, "cluster-constraint", NONE, r);
    add(c, "contiguous", NONE, n);
    add(c, "constraint", 'C', r);
    add(c, "mem", NONE, r);
    add(c, "mincpus", NONE, r);
    add(c, "reservation", NONE, r);
    add(c, "tmp", NONE, r);
    add(c, "nodelist", 'w', r);
    add(c, "exclude", 'x', r);
    add(c, "exclusive", NONE, o);
    add(c, "mem-per-cpu", NONE, r);
    add(c, "sockets-per-node", NONE, r);
    add(c, "cores-per-socket", NONE, r);
    add(c, "threads-per-core", NONE, r);
    add(c, "extra-node-info", 'B', r);
    add(c, "ntasks-per-core", NONE, r);
    add(c, "ntasks-per-socket", NONE, r);
    add(c, "hint", NONE, r);
    add(c, "mem-bind", NONE, r);
    add(c, "cpus-per-gpu", NONE, r);
    add(c, "gpus", 'G', r);
    add(c, "gpu-bind", NONE, r);
    add(c, "gpu-freq", NONE, r);
    add(c, "gpus-per-node", NONE, r);
    add(c, "gpus-per-socket", NONE, r);
    add(c, "gpus-per-task", NONE, r);
    add(c, "mem-per-gpu", NONE, r);
    add(c, "help", 'h', n);
    add(c, "usage", NONE, n);
    add(c, "version", 'V', n);

    List<GnuOptions.Option> s = SALLOC_ONLY;
    add(s, "bell", NONE, n);
    add(s, "no-bell", NONE, n);
    add(s, "get-user-env", NONE, o);
    add(s, "gid", NONE, r);
    add(s, "uid", NONE, r);
    add(s, "no-kill", 'k', o);
    add(s, "kill-command", 'K', o);
    add(s, "nodefile", 'F', r);
    add(s, "no-shell", NONE, n);

    List<GnuOptions.Option> t = SRUN_ONLY;
    add(t, "acctg-freq", NONE, r);
    add(t, "bcast", NONE, r);
    add(t, "bcast-exclude", NONE, r);
    add(t, "compress", NONE, o);
    add(t, "export", NONE, r);
    add(t, "error", 'e', r);
    add(t, "epilog", NONE, r);
    add(t, "preserve-env", 'E', n);
    add(t, "input", 'i', r);
    add(t, "jobid", NONE, r);
    add(t, "no-kill", 'k', o);
    add(t, "kill-on-bad-exit", 'K', o);
    add(t, "label", 'l', n);
    add(t, "mpi", NONE, r);
    add(t, "multi-prog", NONE, n);
    add(t, "output", 'o', r);
    add(t, "overlap", NONE, n);
    add(t, "het-group", NONE, r);
    add(t, "prolog", NONE, r);
    add(t, "propagate", NONE, o);
    add(t, "pty", NONE, n);
    add(t, "quit-on-interrupt", NONE, n);
    add(t, "relative", 'r', r);
    add(t, "send-libs", NONE, o);
    add(t, "slurmd-debug", NONE, r);
    add(t, "task-epilog", NONE, r);
    add(t, "task-prolog", NONE, r);
    add(t, "threads", 'T', r);
    add(t, "unbuffered", 'u', n);
    add(t, "wait", 'W', r);
    add(t, "disable-status", 'X', n);
    add(t, "no-allocate", 'Z', n);
    add(t, "exact", NONE, n);
    add(t, "resv-ports", NONE, o);
    add(t, "cpu-bind", NONE, r);
    // pyxis
    add(t, "container-image", NONE, r);
    add(t, "container-mounts", NONE, r);
    add(t, "container-workdir", NONE, r);
    add(t, "container-name", NONE, r);
    add(t, "container-save", NONE, r);
    add(t, "container-mount-home", NONE, n);
    add(t, "no-container-mount-home", NONE, n);
    add(t, "container-remap-root", NONE, n);
    add(t, "no-container-remap-root", NONE, n);
    add(t, "container-entrypoint", NONE, n);
    add(t, "no-container-entrypoint", NONE, n);
    add(t, "container-writable", NONE, n);
    add(t, "container-readonly", NONE, n);
    add(t, "container-env", NONE, r);
  }

  private static List<GnuOptions.Option> of(List<GnuOptions.Option> only) {
    List<GnuOptions.Option> all = new ArrayList<>(COMMON);
    all.addAll(only);
    return all;
  }

  static final GnuOptions SALLOC = new GnuOptions("salloc", of(SALLOC_ONLY));
  static final GnuOptions SRUN = new GnuOptions("srun", of(SRUN_ONLY));

  /** What both honour: the allocation, as sbatch makes it. */
  private static final Set<String> ALLOCATION =
      Set.of(
          "account",
          "begin",
          "chdir",
          "cpus-per-task",
          "dependency",
          "exclusive",
          "gpus",
          "gpus-per-node",
          "gpus-per-task",
          "gres",
          "help",
          "hold",
          "job-name",
          "mail-type",
          "mail-user",
          "mem",
          "mem-per-cpu",
          "nodes",
          "ntasks",
          "ntasks-per-node",
          "partition",
          "quiet",
          "time",
          "usage",
          "version");

  /** srun's step, which it runs in the allocation, and pyxis's container. */
  static final Set<String> STEP =
      Set.of("label", "unbuffered", "cpu-bind", "mpi", "ntasks", "nodes", "ntasks-per-node");

  private static Set<String> union(Set<String> a, Set<String> b, Set<String> c) {
    Set<String> all = new java.util.HashSet<>(a);
    all.addAll(b);
    all.addAll(c);
    return Set.copyOf(all);
  }

  static final SbatchJob.Command SALLOC_COMMAND =
      new SbatchJob.Command(
          "salloc",
          ALLOCATION,
          Map.of(
              "SALLOC_ACCOUNT", "account",
              "SALLOC_EXCLUSIVE", "exclusive",
              "SALLOC_GPUS", "gpus",
              "SALLOC_GRES", "gres",
              "SALLOC_PARTITION", "partition",
              "SALLOC_TIMELIMIT", "time",
              "SALLOC_QOS", "qos"));

  static final SbatchJob.Command SRUN_COMMAND =
      new SbatchJob.Command(
          "srun",
          union(
              ALLOCATION,
              STEP,
              Set.of(
                  "pty",
                  "container-env",
                  "container-image",
                  "container-mounts",
                  "container-workdir",
                  "container-name",
                  "container-remap-root",
                  "no-container-remap-root",
                  "container-writable",
                  "container-readonly",
                  "no-container-mount-home",
                  "no-container-entrypoint")),
          Map.of(
              "SLURM_ACCOUNT", "account",
              "SLURM_EXCLUSIVE", "exclusive",
              "SLURM_PARTITION", "partition",
              "SLURM_TIMELIMIT", "time",
              "SLURM_QOS", "qos"));
}
