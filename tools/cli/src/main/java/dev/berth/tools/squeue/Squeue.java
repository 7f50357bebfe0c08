package dev.berth.tools.squeue;

import dev.berth.client.GnuOptions;
import dev.berth.client.GnuOptions.Arg;
import dev.berth.client.GnuOptions.Option;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.core.slurm.HostList;
import dev.berth.proto.Job;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatNodes;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.slurm.SlurmCommandLine;
import dev.berth.tools.slurm.SlurmFormat;
import dev.berth.tools.slurm.SlurmJob;
import dev.berth.tools.slurm.SlurmTimes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code squeue}: the jobs Slurm's squeue would list, from the same server as qstat (every job the
 * caller may see, qsub's and sbatch's): pending, running, suspended and completing ones unless
 * {@code -t} asks for others, sorted as Slurm sorts them (partition, state, priority; or as {@code
 * -S} says, {@link SqueueSort}), in Slurm 22.05's default, {@code -l} or {@code --start} layout or
 * a {@code -o} format. Pending tasks of one array share a line ({@code 12_[1-3]}) unless {@code
 * -r}. Options Berth does not honour yet are refused by name. Exit status 0, or 1 for a bad option
 * or when the server cannot be reached.
 */
public final class Squeue {
  private static final List<Option> OPTIONS =
      List.of(
          new Option("account", 'A', Arg.REQUIRED),
          new Option("all", 'a', Arg.NONE),
          new Option("array", 'r', Arg.NONE),
          new Option("array-unique", (char) 0, Arg.NONE),
          new Option("clusters", 'M', Arg.REQUIRED),
          new Option("federation", (char) 0, Arg.NONE),
          new Option("format", 'o', Arg.REQUIRED),
          new Option("Format", 'O', Arg.REQUIRED),
          new Option("help", (char) 0, Arg.NONE),
          new Option("hide", (char) 0, Arg.NONE),
          new Option("iterate", 'i', Arg.REQUIRED),
          new Option("jobs", 'j', Arg.REQUIRED), // Slurm takes the next word too
          new Option("json", (char) 0, Arg.NONE),
          new Option("licenses", 'L', Arg.REQUIRED),
          new Option("local", (char) 0, Arg.NONE),
          new Option("long", 'l', Arg.NONE),
          new Option("me", (char) 0, Arg.NONE),
          new Option("name", 'n', Arg.REQUIRED),
          new Option("noconvert", (char) 0, Arg.NONE),
          new Option("noheader", 'h', Arg.NONE),
          new Option("nodelist", 'w', Arg.REQUIRED),
          new Option("partition", 'p', Arg.REQUIRED),
          new Option("priority", 'P', Arg.NONE),
          new Option("qos", 'q', Arg.REQUIRED),
          new Option("reservation", 'R', Arg.REQUIRED),
          new Option("sibling", (char) 0, Arg.NONE),
          new Option("sort", 'S', Arg.REQUIRED),
          new Option("start", (char) 0, Arg.NONE),
          new Option("states", 't', Arg.REQUIRED),
          new Option("steps", 's', Arg.OPTIONAL),
          new Option("usage", (char) 0, Arg.NONE),
          new Option("user", 'u', Arg.REQUIRED),
          new Option("verbose", 'v', Arg.NONE),
          new Option("version", 'V', Arg.NONE),
          new Option("yaml", (char) 0, Arg.NONE));

  /** What Berth's squeue honours so far (docs/slurm.md); the other options are refused. */
  private static final Set<String> HONOURED =
      Set.of(
          "account",
          "all",
          "array",
          "format",
          "Format",
          "help",
          "iterate",
          "jobs",
          "long",
          "me",
          "name",
          "noheader",
          "nodelist",
          "partition",
          "sort",
          "start",
          "states",
          "usage",
          "user",
          "version");

  /** squeue's states when -t names none: those of jobs not yet ended. */
  private static final Set<SlurmJob.State> UNENDED =
      EnumSet.of(
          SlurmJob.State.PENDING,
          SlurmJob.State.RUNNING,
          SlurmJob.State.SUSPENDED,
          SlurmJob.State.COMPLETING);

  private static final Pattern LEADING_NUMBER = Pattern.compile("^\\s*([+-]?\\d{1,9})");

  static final String USAGE =
      "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
          + "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
          + "              [--reservation reservation] [--sort fields] [--start]\n"
          + "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
          + "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
          + "              [-ahjlrsv]";

  private Squeue() {}

  public static int run(Invocation inv) {
    return run(inv, CliContext.DEFAULT);
  }

  public static int run(Invocation inv, CliContext context) {
    SlurmCommandLine.Read read = SlurmCommandLine.read(inv, OPTIONS, HONOURED, Map.of(), USAGE);
    if (read.done().isPresent()) {
      return read.done().getAsInt();
    }
    if (!read.operands().isEmpty()) {
      inv.err().println("squeue: error: Unrecognized option: " + read.operands().get(0));
      inv.err().println(USAGE);
      return 1;
    }
    Map<String, String> given = read.options();
    if (given.containsKey("iterate") && iterate(given.get("iterate")) <= 0) {
      inv.err().println("squeue: error: --iterate=" + given.get("iterate") + "\n");
      return 1;
    }
    ZoneId zone = inv.zone();
    SlurmFormat<SlurmJob> format;
    Set<SlurmJob.State> states;
    Comparator<SlurmJob> order;
    try {
      order =
          SqueueSort.parse(
              given.getOrDefault(
                  "sort", given.containsKey("start") ? SqueueSort.START : SqueueSort.DEFAULT));
      if (given.containsKey("format") && given.containsKey("Format")) {
        throw new IllegalArgumentException(incompatible(inv.args()));
      }
      String layout =
          given.containsKey("format")
              ? given.get("format")
              : given.containsKey("start")
                  ? SqueueFormat.START
                  : given.containsKey("long") ? SqueueFormat.LONG : SqueueFormat.DEFAULT;
      format =
          given.containsKey("Format")
              ? SlurmFormat.parseNamed(
                  given.get("Format"),
                  SqueueFormat.NAMES,
                  SqueueFormat.NOT_SHOWN,
                  SqueueFormat.fields(zone),
                  "squeue")
              : SlurmFormat.parse(layout, SqueueFormat.fields(zone), "squeue");
      states = states(given.get("states"), given.containsKey("start"));
    } catch (IllegalArgumentException e) {
      inv.err().println("squeue: error: " + e.getMessage());
      return 1;
    }
    Set<String> hosts;
    try {
      hosts =
          given.containsKey("nodelist")
              ? new java.util.LinkedHashSet<>(HostList.expand(given.get("nodelist")))
              : Set.of();
    } catch (HostList.InvalidException e) {
      inv.err().println("squeue: error: " + e.getMessage());
      return 1;
    }
    List<Job> jobs;
    try (ServerConnection server = context.connector().connect(inv)) {
      if (!hosts.isEmpty()) {
        Response n = server.call(Request.newBuilder().setStatNodes(StatNodes.getDefaultInstance()));
        if (SlurmCommandLine.refused(inv, n)) {
          return 1;
        }
        Set<String> known = new HashSet<>();
        n.getNodes().getNodesList().forEach(ns -> known.add(ns.getNode().getName()));
        for (String host : hosts) {
          if (!known.contains(host)) {
            inv.err().println("squeue: error: Invalid node name " + ControlCharacters.escape(host));
            return 1;
          }
        }
      }
      Response r =
          server.call(
              Request.newBuilder()
                  .setStatJobs(StatJobs.newBuilder().setIncludeSubjobs(true).setBrief(true)));
      if (SlurmCommandLine.refused(inv, r)) {
        return 1;
      }
      jobs = r.getJobs().getJobsList();
    } catch (ServerUnavailableException e) {
      inv.err().println("squeue: error: " + e.getMessage());
      return 1;
    }
    long now = context.nowSeconds();
    List<SlurmJob> shown = new ArrayList<>();
    List<String> users =
        given.containsKey("me")
            ? List.of(SlurmCommandLine.caller(inv))
            : SlurmCommandLine.list(given.get("user"));
    List<String> ids = SlurmCommandLine.list(given.get("jobs"));
    List<String> partitions = SlurmCommandLine.list(given.get("partition"));
    List<String> names = SlurmCommandLine.list(given.get("name"));
    List<String> accounts = SlurmCommandLine.list(given.get("account"));
    for (Job job : jobs) {
      if (SlurmJob.arrayParent(job)) {
        continue; // its tasks are listed
      }
      SlurmJob j = new SlurmJob(job, now);
      if (!states.contains(j.state())
          || !users.isEmpty() && !users.contains(job.getEuser())
          || !ids.isEmpty() && ids.stream().noneMatch(j::answersTo)
          || !partitions.isEmpty() && !partitions.contains(job.getQueue())
          || !names.isEmpty() && !names.contains(job.getName())
          || !accounts.isEmpty() && !accounts.contains(job.getAccount())
          || !hosts.isEmpty()
              && job.getExecNodesList().stream().noneMatch(n -> hosts.contains(n.getNode()))) {
        continue;
      }
      shown.add(j);
    }
    shown.sort(order);
    boolean iterated = given.containsKey("iterate");
    if (!given.containsKey("noheader")) {
      if (given.containsKey("long") || iterated) {
        inv.out().println(SlurmTimes.banner(now, zone));
      }
      inv.out().println(format.header());
    }
    for (String line : rows(shown, format, given.containsKey("array"))) {
      inv.out().println(line);
    }
    if (iterated) {
      inv.out().println();
    }
    return 0;
  }

  /**
   * {@code -i}: how many seconds after this listing squeue lists again (until interrupted), as
   * Slurm's squeue repeats itself; the caller repeats it, so that a run the server hosts ends.
   * Empty without {@code -i}, or when the arguments are wrong (the run has said so).
   */
  public static OptionalInt repeatAfter(List<String> args) {
    try {
      for (GnuOptions.Given g : new GnuOptions("squeue", OPTIONS).parse(args).options()) {
        if (g.option().name().equals("iterate") && iterate(g.value()) > 0) {
          return OptionalInt.of(iterate(g.value()));
        }
      }
    } catch (GnuOptions.UsageException e) {
      return OptionalInt.empty();
    }
    return OptionalInt.empty();
  }

  /** {@code -i}'s seconds as Slurm reads them (atoi: a leading number, else 0). */
  private static int iterate(String value) {
    Matcher m = LEADING_NUMBER.matcher(value);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** Slurm's refusal of -o with -O, which names the one given last. */
  private static String incompatible(List<String> args) {
    int lower = -1;
    int upper = -1;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.startsWith("-o") || a.startsWith("--format")) {
        lower = i;
      } else if (a.startsWith("-O") || a.startsWith("--Format")) {
        upper = i;
      }
    }
    return upper > lower
        ? "-O (--Format) is incompatible with -o (--format)"
        : "-o (--format) is incompatible with -O (--Format)";
  }

  /**
   * The lines: a job each, but the pending tasks of one array on one line, {@code 12_[1-3,5]}, at
   * the first one's place ({@code -r}: a task each).
   */
  private static List<String> rows(
      List<SlurmJob> jobs, SlurmFormat<SlurmJob> format, boolean eachTask) {
    Map<Long, List<SlurmJob>> pendingTasks = new HashMap<>();
    for (SlurmJob j : jobs) {
      if (!eachTask && j.arrayTask() && j.state() == SlurmJob.State.PENDING) {
        pendingTasks.computeIfAbsent(j.job().getNumber(), n -> new ArrayList<>()).add(j);
      }
    }
    List<String> lines = new ArrayList<>();
    Set<Long> done = new HashSet<>();
    for (SlurmJob j : jobs) {
      List<SlurmJob> tasks = pendingTasks.get(j.job().getNumber());
      if (tasks == null || !tasks.contains(j)) {
        lines.add(format.row(j));
      } else if (done.add(j.job().getNumber())) {
        lines.add(format.row(j.forTasks(indexes(tasks))));
      }
    }
    return lines;
  }

  private static String indexes(List<SlurmJob> tasks) {
    TreeSet<Integer> sorted = new TreeSet<>();
    tasks.forEach(t -> sorted.add(t.job().getArrayIndex()));
    return dev.berth.core.CpuRanges.format(List.copyOf(sorted));
  }

  /** {@code -t}: the states named (long or compact, any case; {@code all}); else the unended. */
  private static Set<SlurmJob.State> states(String list, boolean start) {
    if (start && list == null) {
      return EnumSet.of(SlurmJob.State.PENDING);
    }
    if (list == null) {
      return UNENDED;
    }
    Set<SlurmJob.State> states = EnumSet.noneOf(SlurmJob.State.class);
    for (String name : list.split(",")) {
      if (name.equalsIgnoreCase("all")) {
        return EnumSet.allOf(SlurmJob.State.class);
      }
      SlurmJob.State s = SlurmJob.State.named(name.strip());
      if (s == null) {
        throw new IllegalArgumentException("Invalid job state specified: " + name);
      }
      states.add(s);
    }
    return states;
  }
}
