package dev.berth.tools.qsub;

import static dev.berth.core.AttributeNames.ACCOUNT_NAME;
import static dev.berth.core.AttributeNames.DEPEND;
import static dev.berth.core.AttributeNames.DESTINATION;
import static dev.berth.core.AttributeNames.ERROR_PATH;
import static dev.berth.core.AttributeNames.EXECUTION_TIME;
import static dev.berth.core.AttributeNames.HOLD_TYPES;
import static dev.berth.core.AttributeNames.INIT_WORK_DIR;
import static dev.berth.core.AttributeNames.INTERACTIVE;
import static dev.berth.core.AttributeNames.INTER_CMD;
import static dev.berth.core.AttributeNames.JOB_ARRAY_REQUEST;
import static dev.berth.core.AttributeNames.JOB_NAME;
import static dev.berth.core.AttributeNames.JOIN_PATH;
import static dev.berth.core.AttributeNames.MAIL_POINTS;
import static dev.berth.core.AttributeNames.MAIL_USERS;
import static dev.berth.core.AttributeNames.NODE_EXCLUSIVE;
import static dev.berth.core.AttributeNames.OUTPUT_PATH;
import static dev.berth.core.AttributeNames.RESOURCE_LIST;
import static dev.berth.core.AttributeNames.SBATCH;
import static dev.berth.core.AttributeNames.SUBMIT_ARGS;
import static dev.berth.core.AttributeNames.SUBMIT_HOST;
import static dev.berth.core.AttributeNames.SUBMIT_STYLE;
import static dev.berth.core.AttributeNames.VARIABLE_LIST;

import dev.berth.client.GnuOptions;
import dev.berth.core.VariableNames;
import dev.berth.proto.Attribute;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * sbatch's options, from the script's {@code #SBATCH} lines, then the {@code SBATCH_*} variables,
 * then the command line (each later one wins), as the attributes of a Berth job that runs as Slurm
 * runs a batch job ({@code submit_style = sbatch}): its name, output files (Slurm's {@code %}
 * patterns, {@code slurm-%j.out} by default, stderr joined to stdout), working directory (the
 * directory sbatch ran in, or {@code -D}), queue ({@code -p}), CPUs over nodes ({@code -N}, {@code
 * -n}, {@code --ntasks-per-node}, {@code -c}), array ({@code --array}), memory ({@code --mem} per
 * node, {@code --mem-per-cpu}), time limit, account, hold and environment ({@code --export}), with
 * the variables Slurm's sbatch hands the job. An option Berth does not honour yet is refused by
 * name.
 */
final class SbatchJob {
  /** The {@code SBATCH_*} variables Slurm's sbatch reads, and the option each stands for. */
  private static final Map<String, String> INPUT_VARIABLES =
      Map.ofEntries(
          Map.entry("SBATCH_ACCOUNT", "account"),
          Map.entry("SBATCH_ARRAY_INX", "array"),
          Map.entry("SBATCH_CLUSTERS", "clusters"),
          Map.entry("SBATCH_CONSTRAINT", "constraint"),
          Map.entry("SBATCH_EXCLUSIVE", "exclusive"),
          Map.entry("SBATCH_EXPORT", "export"),
          Map.entry("SBATCH_GPUS", "gpus"),
          Map.entry("SBATCH_GRES", "gres"),
          Map.entry("SBATCH_IGNORE_PBS", "ignore-pbs"),
          Map.entry("SBATCH_JOB_NAME", "job-name"),
          Map.entry("SBATCH_MEM_PER_CPU", "mem-per-cpu"),
          Map.entry("SBATCH_MEM_PER_NODE", "mem"),
          Map.entry("SBATCH_PARTITION", "partition"),
          Map.entry("SBATCH_QOS", "qos"),
          Map.entry("SBATCH_RESERVATION", "reservation"),
          Map.entry("SBATCH_TIMELIMIT", "time"),
          Map.entry("SBATCH_WAIT", "wait"));

  private SbatchJob() {}

  /**
   * The Slurm command that submits: its name, the options of its own it honours, and the variables
   * it reads as options ({@code SBATCH_*}, {@code SALLOC_*}, {@code SLURM_*}).
   */
  record Command(String program, Set<String> honoured, Map<String, String> inputVariables) {
    static final Command SBATCH = new Command("sbatch", SbatchOptions.HONOURED, INPUT_VARIABLES);
  }

  /**
   * Where the command runs, and what it read.
   *
   * @param interactive null for a batch job; else the job is interactive (salloc's, srun's), with
   *     this command on its terminal, or its owner's login shell when empty
   */
  record Input(
      Command command,
      List<GnuOptions.Given> directives,
      List<GnuOptions.Given> commandLine,
      SubmitContext ctx,
      String defaultName,
      List<String> args,
      String interactive) {}

  /**
   * The merged options: each option's last value; of two that undo each other ({@code
   * --container-remap-root} and {@code --no-container-remap-root}), the last.
   */
  static Map<String, String> merged(Input in) throws SbatchException {
    Command command = in.command();
    Map<String, String> values = new LinkedHashMap<>();
    for (GnuOptions.Given g : in.directives()) {
      put(values, honoured(command, g.option().name(), "--"), g.value());
    }
    for (Map.Entry<String, String> v : new java.util.TreeMap<>(in.ctx().env()).entrySet()) {
      String option = command.inputVariables().get(v.getKey());
      if (option != null) {
        GnuOptions.Option o = SbatchOptions.named(option);
        put(
            values,
            honoured(command, option, v.getKey() + " is set: --"),
            o.arg() == GnuOptions.Arg.NONE ? "" : v.getValue());
      }
    }
    for (GnuOptions.Given g : in.commandLine()) {
      put(values, honoured(command, g.option().name(), "--"), g.value());
    }
    return values;
  }

  /** Options that undo each other: the one given takes the other's place. */
  private static final Map<String, String> OPPOSITES =
      Map.of(
          "container-remap-root", "no-container-remap-root",
          "no-container-remap-root", "container-remap-root",
          "container-writable", "container-readonly",
          "container-readonly", "container-writable");

  private static void put(Map<String, String> values, String option, String value) {
    String opposite = OPPOSITES.get(option);
    if (opposite != null) {
      values.remove(opposite);
    }
    values.put(option, value);
  }

  private static String honoured(Command command, String option, String how)
      throws SbatchException {
    if (!command.honoured().contains(option)) {
      throw SbatchException.failed(
          how
              + option
              + " is not supported by Berth's "
              + command.program()
              + " yet (docs/slurm.md lists what is)");
    }
    return option;
  }

  /** The attributes to send for {@code values} (from {@link #merged}). */
  static List<Attribute> attributes(Input in, Map<String, String> values, List<String> warnings)
      throws SbatchException {
    SubmitContext ctx = in.ctx();
    List<Attribute> a = new ArrayList<>();
    Map<String, String> slurm = new LinkedHashMap<>(); // what sbatch sets in the job's environment
    String name = values.getOrDefault("job-name", in.defaultName());
    add(a, JOB_NAME, name);
    String workDir = values.containsKey("chdir") ? ctx.absolute(values.get("chdir")) : cwd(ctx);
    add(a, INIT_WORK_DIR, workDir);
    if (in.interactive() != null) {
      add(a, INTERACTIVE, "True"); // its output is its terminal's
      if (!in.interactive().isEmpty()) {
        add(a, INTER_CMD, in.interactive());
      }
    } else {
      boolean array = values.containsKey("array");
      if (array) {
        add(a, JOB_ARRAY_REQUEST, values.get("array")); // the server checks it, as Slurm's does
      }
      String output =
          path(values.getOrDefault("output", array ? "slurm-%A_%a.out" : "slurm-%j.out"), workDir);
      add(a, OUTPUT_PATH, ctx.host() + ":" + output);
      if (values.containsKey("error")) {
        add(a, ERROR_PATH, ctx.host() + ":" + path(values.get("error"), workDir));
      } else {
        add(a, ERROR_PATH, ctx.host() + ":" + output);
        add(a, JOIN_PATH, "oe"); // Slurm's stderr goes with stdout unless -e says where
      }
    }
    if (values.containsKey("partition")) {
      String partition = values.get("partition");
      if (partition.contains(",")) {
        throw SbatchException.failed(
            "--partition=" + partition + ": a job goes to one partition (a queue) in Berth");
      }
      add(a, DESTINATION, partition);
    }
    if (values.containsKey("account")) {
      add(a, ACCOUNT_NAME, values.get("account"));
    }
    if (values.containsKey("hold")) {
      add(a, HOLD_TYPES, "u");
    }
    if (values.containsKey("time")) {
      OptionalLong seconds = SlurmValues.timeLimit(values.get("time"));
      if (seconds.isPresent()) {
        resource(a, "walltime", Long.toString(seconds.getAsLong()));
      }
    }
    Layout layout = Layout.of(values, slurm);
    int gpus = 0;
    if (values.containsKey("gres")) {
      gpus = SlurmRequests.gpusOfGres(values.get("gres"));
    }
    if (values.containsKey("gpus-per-node")) {
      gpus = SlurmRequests.count("gpus-per-node", values.get("gpus-per-node"));
    }
    if (values.containsKey("gpus")) {
      if (gpus > 0) {
        throw SbatchException.failed(
            "--gpus with --gres or --gpus-per-node: give the GPUs one way (Berth's are per node)");
      }
      gpus = SlurmRequests.gpusPerNode(values.get("gpus"), layout.nodeCount());
      slurm.put("SLURM_GPUS", values.get("gpus"));
    }
    if (values.containsKey("gpus-per-task")) {
      gpus = gpusForTasks(values, layout, gpus, slurm);
    }
    resource(a, "nodes", layout.nodes() + (gpus > 0 ? ":gpus=" + gpus : ""));
    if (gpus > 0 && layout.groups().size() > 1) {
      throw SbatchException.failed(
          "GPUs with tasks spread unevenly over nodes ("
              + layout.nodes()
              + ") are not supported"
              + " by Berth's sbatch yet");
    }
    if (values.containsKey("exclusive")) {
      if (!values.get("exclusive").isEmpty() && !values.get("exclusive").equals("exclusive")) {
        throw SbatchException.failed(
            "--exclusive="
                + values.get("exclusive")
                + " is not supported by Berth's sbatch yet"
                + " (--exclusive alone is)");
      }
      add(a, NODE_EXCLUSIVE, "True");
    }
    if (values.containsKey("dependency")) {
      add(
          a,
          DEPEND,
          SlurmRequests.depend("--dependency", "Berth's sbatch", values.get("dependency")));
      slurm.put("SLURM_JOB_DEPENDENCY", values.get("dependency"));
    }
    if (values.containsKey("begin")) {
      add(a, EXECUTION_TIME, Long.toString(SlurmRequests.begin(values.get("begin"), ctx.clock())));
    }
    if (values.containsKey("mail-type")) {
      add(a, MAIL_POINTS, SlurmRequests.mailPoints(values.get("mail-type")));
    }
    if (values.containsKey("mail-user")) {
      add(a, MAIL_USERS, values.get("mail-user"));
    }
    memory(values, layout, a, slurm);
    for (Map.Entry<String, String> c : PyxisOptions.attributes(values, ctx).entrySet()) {
      add(a, c.getKey(), c.getValue());
    }
    slurm.put("SLURM_SUBMIT_DIR", cwd(ctx));
    slurm.put("SLURM_SUBMIT_HOST", ctx.host());
    // Torque's PBS_O_* too: a Berth job has both families (and a script may use either)
    for (String copied : VariableList.COPIED) {
      if (ctx.env().containsKey(copied)) {
        slurm.put("PBS_O_" + copied, ctx.env().get(copied));
      }
    }
    slurm.put("PBS_O_HOST", ctx.host());
    slurm.put("PBS_O_WORKDIR", cwd(ctx));
    if (values.containsKey("chdir")) {
      slurm.put("PBS_O_INITDIR", workDir);
    }
    String export = values.getOrDefault("export", "ALL");
    if (!export.equals("ALL")) {
      slurm.put("SLURM_EXPORT_ENV", export);
    }
    add(a, SUBMIT_STYLE, SBATCH);
    add(a, SUBMIT_ARGS, String.join(" ", in.args()));
    add(a, SUBMIT_HOST, ctx.host());
    for (Map.Entry<String, String> v : environment(export, ctx, slurm, warnings).entrySet()) {
      add(a, VARIABLE_LIST, v.getKey() + "=" + v.getValue());
    }
    return a;
  }

  private static String cwd(SubmitContext ctx) {
    return ctx.cwd().toString();
  }

  /** An output path: {@code none} is /dev/null, a relative one is in the working directory. */
  private static String path(String path, String workDir) {
    if (path.equals("none")) {
      return "/dev/null";
    }
    return path.startsWith("/") ? path : (workDir.endsWith("/") ? workDir : workDir + "/") + path;
  }

  /**
   * {@code --gpus-per-task=N}: N GPUs for each of the tasks on a node, so N times its tasks there
   * (srun then gives each task its own N, as Slurm's implied {@code --gpu-bind=per_task:N}); the
   * tasks must be counted ({@code -n}, or {@code --ntasks-per-node}), as Slurm asks.
   */
  private static int gpusForTasks(
      Map<String, String> values, Layout layout, int otherGpus, Map<String, String> slurm)
      throws SbatchException {
    if (otherGpus > 0) {
      throw SbatchException.failed(
          "--gpus-per-task with --gres, --gpus or --gpus-per-node: give the GPUs one way");
    }
    if (!values.containsKey("ntasks") && !values.containsKey("ntasks-per-node")) {
      throw SbatchException.failed(
          "--gpus-per-task needs a task count: -n (--ntasks), or --ntasks-per-node");
    }
    String text = values.get("gpus-per-task");
    if (text.contains(":")) {
      throw SbatchException.failed(
          "--gpus-per-task="
              + text
              + ": GPU types are not supported by Berth's sbatch yet (a number is)");
    }
    int each = SlurmRequests.count("gpus-per-task", text);
    int cpusPerTask =
        values.containsKey("cpus-per-task") ? Integer.parseInt(values.get("cpus-per-task")) : 1;
    slurm.put("SLURM_GPUS_PER_TASK", Integer.toString(each));
    return each * (layout.groups().get(0)[1] / cpusPerTask);
  }

  /**
   * How the job's tasks and CPUs lie over its nodes, as Slurm lays them out: {@code -N} nodes,
   * {@code -n} tasks spread evenly (the first nodes one more), {@code --ntasks-per-node}, each task
   * {@code -c} CPUs; without {@code -N}, Berth puts {@code -n} tasks on one node (it does not
   * spread them).
   *
   * @param groups node counts and CPUs per node, in Torque's {@code nodes=} order
   */
  record Layout(List<int[]> groups) {
    String nodes() {
      List<String> parts = new ArrayList<>();
      for (int[] g : groups) {
        parts.add(g[0] + ":ppn=" + g[1]);
      }
      return String.join("+", parts);
    }

    int nodeCount() {
      return groups.stream().mapToInt(g -> g[0]).sum();
    }

    /** The CPUs on each node, when every node has as many; else -1. */
    int evenCpus() {
      return groups.stream().mapToInt(g -> g[1]).distinct().count() == 1 ? groups.get(0)[1] : -1;
    }

    static Layout of(Map<String, String> values, Map<String, String> slurm) throws SbatchException {
      Integer nodes = values.containsKey("nodes") ? nodes(values.get("nodes")) : null;
      Integer tasks = count(values, "ntasks");
      Integer perNode = count(values, "ntasks-per-node");
      Integer cpus = count(values, "cpus-per-task");
      int c = cpus == null ? 1 : cpus;
      if (cpus != null) {
        slurm.put("SLURM_CPUS_PER_TASK", Integer.toString(c));
      }
      if (perNode != null) {
        slurm.put("SLURM_NTASKS_PER_NODE", Integer.toString(perNode));
      }
      List<int[]> groups = new ArrayList<>();
      if (perNode != null && tasks == null && nodes != null) {
        tasks = nodes * perNode;
      }
      if (tasks != null) {
        slurm.put("SLURM_NTASKS", Integer.toString(tasks));
        slurm.put("SLURM_NPROCS", Integer.toString(tasks));
      }
      if (nodes == null && perNode != null && tasks != null) {
        int full = tasks / perNode;
        int rest = tasks % perNode;
        if (full > 0) {
          groups.add(new int[] {full, perNode * c});
        }
        if (rest > 0) {
          groups.add(new int[] {1, rest * c});
        }
      } else if (nodes != null && tasks != null) {
        int n = Math.min(nodes, tasks); // Slurm: can't run T processes on N nodes: N = T
        int each = tasks / n;
        int more = tasks % n;
        if (more > 0) {
          groups.add(new int[] {more, (each + 1) * c});
        }
        groups.add(new int[] {n - more, each * c});
      } else if (nodes != null) {
        groups.add(new int[] {nodes, c});
      } else {
        groups.add(new int[] {1, (tasks == null ? 1 : tasks) * c});
      }
      return new Layout(List.copyOf(groups));
    }

    /** {@code -N}: a count; Slurm's ranges ({@code 2-4}) are not honoured yet. */
    private static int nodes(String text) throws SbatchException {
      if (text.matches("\\d+-\\d*")) {
        throw SbatchException.failed(
            "--nodes=" + text + ": a range of node counts is not supported by Berth's sbatch yet");
      }
      if (!text.matches("\\d{1,6}") || Integer.parseInt(text) < 1) {
        throw SbatchException.badOption("\"" + text + "\" is not a valid node count");
      }
      return Integer.parseInt(text);
    }

    private static Integer count(Map<String, String> values, String option) throws SbatchException {
      String text = values.get(option);
      if (text == null) {
        return null;
      }
      if (!text.matches("\\d{1,6}") || Integer.parseInt(text) < 1) {
        throw SbatchException.failed(
            "Invalid numeric value \"" + text + "\" for --" + option + ".");
      }
      return Integer.parseInt(text);
    }
  }

  /**
   * {@code --mem} (MiB per node) as the job's mem over its nodes, which Berth shares out by CPUs:
   * exact when every node has as many CPUs; {@code --mem-per-cpu} as pmem (a Berth slot is a CPU).
   */
  private static void memory(
      Map<String, String> values, Layout layout, List<Attribute> a, Map<String, String> slurm)
      throws SbatchException {
    boolean perNode = values.containsKey("mem");
    boolean perCpu = values.containsKey("mem-per-cpu");
    if (perNode && perCpu) {
      throw new SbatchException(
          SbatchException.FAILED,
          "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
    }
    if (perNode) {
      long mb = SlurmValues.megabytes("mem", values.get("mem"));
      if (mb == 0) {
        throw SbatchException.failed(
            "--mem=0 (all of each node's memory) is not supported by Berth's sbatch yet");
      }
      if (layout.evenCpus() < 0) {
        throw SbatchException.failed(
            "--mem with tasks spread unevenly over nodes ("
                + layout.nodes()
                + "): give --mem-per-cpu instead");
      }
      resource(a, "mem", Math.multiplyExact(mb, (long) layout.nodeCount()) + "mb");
      slurm.put("SLURM_MEM_PER_NODE", Long.toString(mb));
    } else if (perCpu) {
      long mb = SlurmValues.megabytes("mem-per-cpu", values.get("mem-per-cpu"));
      resource(a, "pmem", mb + "mb");
      slurm.put("SLURM_MEM_PER_CPU", Long.toString(mb));
    }
  }

  /**
   * The job's environment as {@code --export} says: {@code ALL} (the default) every variable here,
   * {@code NONE} none, else the names listed (and {@code NAME=value}, and {@code ALL} among them);
   * then sbatch's own {@code SLURM_*}, which the job gets in any case.
   */
  private static Map<String, String> environment(
      String export, SubmitContext ctx, Map<String, String> slurm, List<String> warnings)
      throws SbatchException {
    Map<String, String> env = new LinkedHashMap<>();
    boolean all = false;
    if (export.equals("ALL")) {
      all = true;
    } else if (!export.equals("NONE")) {
      for (String item : export.split(",")) {
        String entry = item.strip();
        int eq = entry.indexOf('=');
        String name = eq < 0 ? entry : entry.substring(0, eq);
        if (entry.equals("ALL")) {
          all = true;
        } else if (entry.equals("NONE") || entry.isEmpty()) {
          continue;
        } else if (!VariableNames.isName(name)) {
          throw SbatchException.failed(
              "--export=" + export + ": '" + name + "' is no variable name");
        } else if (eq >= 0) {
          env.put(name, entry.substring(eq + 1));
        } else if (ctx.env().containsKey(name)) {
          env.put(name, ctx.env().get(name));
        }
      }
    }
    if (all) {
      List<String> left = new ArrayList<>();
      VariableList.exported(ctx.env(), left).forEach(env::putIfAbsent);
      left.forEach(w -> warnings.add(w.replaceFirst("^-V: ", "--export=" + export + ": ")));
    }
    env.putAll(slurm);
    return env;
  }

  private static void resource(List<Attribute> a, String resource, String value) {
    a.add(
        Attribute.newBuilder()
            .setName(RESOURCE_LIST)
            .setResource(resource)
            .setValue(value)
            .build());
  }

  private static void add(List<Attribute> a, String name, String value) {
    a.add(Attribute.newBuilder().setName(name).setValue(value).build());
  }
}
