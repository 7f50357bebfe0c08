package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Berth's Slurm commands against Slurm 22.05's own, side by side in one run (issue 34: each at most
 * Slurm's own). Each manager first runs a 10,000-task array of {@code true} through two CPUs with
 * cgroups, as the same job user, one manager after the other (Berth: {@code qsub -t} on one mom,
 * whose tasks share their array's number as Slurm's do; Slurm: {@code sbatch --array}, its
 * controller recording jobs in a private slurmdbd and MariaDB); both controllers forget a finished
 * job 2 s after it ends (Berth's keep_completed, the tuned Slurm's MinJobAge), so that sacct lists
 * what they stored. Then, both managers up and idle, the same sacct over the 10,000 finished jobs,
 * Berth's and Slurm's calls alternating; then 1,000 {@code sbatch --hold} in a shell loop on each,
 * and with those 1,000 held jobs queued in each, sbatch, squeue and scancel, the six alternating
 * (Berth's held jobs in a fresh server without moms, as CommandBench's, since moms that run jobs as
 * berth-alice make the server refuse root's). Measured: the wall time per call (median, p90) and
 * the peak resident size of one call. The commands run as root, by their full paths, with the same
 * options on both sides. Every call must exit 0 and print what it should: sacct every task once,
 * COMPLETED 0:0; squeue every queued job; sbatch a job id; scancel leaves the job gone from squeue.
 */
final class SlurmCommandBench {
  private static final int FINISHED = 10_000;
  private static final int QUEUED = 1_000;
  private static final int RUNS = 50;

  /** Untimed calls of each before the timed ones, on both sides (Commands.warm). */
  private static final int WARMUP = 50;

  private static final int KEEP_SECONDS = 2;
  private static final long WAIT_MILLIS = 3_600_000;
  private static final String JOB_SCRIPT = "#!/bin/sh\ntrue\n";
  private static final Path SLURM_BIN = Path.of("/usr/bin");
  private static final Set<String> UNFINISHED = Set.of("PENDING", "RUNNING", "COMPLETING");
  private static final String[] OPERATIONS = {
    "sbatch --parsable --hold job.sh",
    "squeue, " + String.format("%,d", QUEUED) + " held jobs queued",
    "scancel ID (a held job)",
    "sacct, " + String.format("%,d", FINISHED) + " finished jobs"
  };

  /**
   * One resource manager: where its commands are, and how it runs the array of {@link #FINISHED}
   * tasks as {@code jobUser}, returning the array's Slurm id.
   */
  private record Side(String name, Path bin, ArrayJob array, String jobUser) {
    List<String> argv(String command, String... args) {
      List<String> argv = new ArrayList<>(List.of(bin.resolve(command).toString()));
      argv.addAll(List.of(args));
      return argv;
    }
  }

  private interface ArrayJob {
    String submit() throws Exception;
  }

  /** One side's array: its jobs/s from submission to the last gone, its first full sacct's ms. */
  private record Figures(double arrayJobsPerSecond, double firstSacctMillis) {}

  private SlurmCommandBench() {}

  static void run(Path root) throws Exception {
    Optional<Path> scripts = Slurm.scripts(root);
    if (scripts.isPresent()) {
      Optional<String> missing = Slurm.accountingMissing(root);
      if (missing.isPresent()) {
        System.out.print(missing.get());
        throw new IllegalStateException(
            "Slurm's sacct needs slurmdbd and MariaDB; install them as above and run again");
      }
    }
    String start =
        LocalDateTime.now()
            .truncatedTo(ChronoUnit.SECONDS)
            .minusMinutes(1)
            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss"));
    String[] sacct = {"-a", "-X", "-P", "-S", start};
    String user = exists("berth-alice") ? "berth-alice" : "root";
    Path work = Files.createTempDirectory(Path.of("/tmp"), "berth-bench-slurm-commands");
    MomCluster cluster = new MomCluster(root, Trust.TLS);
    Slurm slurm = null;
    try {
      new ProcessBuilder("chown", user, work.toString()).start().waitFor();
      work.toFile().setReadable(true, false);
      work.toFile().setExecutable(true, false);
      Files.writeString(work.resolve("job.sh"), JOB_SCRIPT);
      Side berth = berth(root, cluster, work);
      Map<String, String> env = new HashMap<>();
      env.put("BERTH_SERVER", cluster.socket().toString());
      Map<String, Figures> figures = new LinkedHashMap<>();
      figures.put("Berth", finished(berth, new Commands(work, env), sacct));
      List<Side> sides = new ArrayList<>(List.of(berth));
      if (scripts.isPresent()) {
        slurm =
            Slurm.startWithAccounting(
                root,
                scripts.get(),
                "tuned",
                "",
                user.equals("root") ? List.of("root") : List.of("root", user));
        env.putAll(slurm.env());
        Side side = slurm(new Commands(work, env), slurm.env(), user);
        figures.put("Slurm", finished(side, new Commands(work, env), sacct));
        sides.add(side);
      }
      List<Commands.Timing> listings = timeSacct(sides, new Commands(work, env), sacct);
      cluster.close();
      try (BenchServer queue = new BenchServer(root, Trust.TLS)) {
        queue.start();
        queue.acceptJobs();
        env.put("BERTH_SERVER", queue.socket.toString());
        Commands shell = new Commands(work, env);
        Map<String, Double> loops = new LinkedHashMap<>();
        for (Side side : sides) {
          loops.put(side.name(), submitLoop(side, shell));
        }
        List<Commands.Timing> timings = timeQueued(sides, shell);
        print(sides, timings, listings, figures, loops, String.join(" ", sacct));
      }
    } finally {
      try {
        cluster.close();
      } finally {
        if (slurm != null) {
          slurm.close();
        }
        BenchServer.deleteTree(work);
      }
    }
  }

  private static Side berth(Path root, MomCluster cluster, Path work) throws Exception {
    cluster.start();
    cluster.qmgr("set server cgroup_enable = True");
    cluster.qmgr("set server keep_completed = " + KEEP_SECONDS);
    cluster.startMom("n1", "0-1");
    ArrayJob array =
        () -> {
          String id = cluster.submit("true\n", "-t", "0-" + (FINISHED - 1)); // 12[].bench
          return id.substring(0, id.indexOf('['));
        };
    String user = cluster.user() != null ? cluster.user() : "root";
    return new Side("Berth", nativeCommands(root, work), array, user);
  }

  /**
   * Berth's commands as its package installs them, each a link to the native client
   * (/usr/bin/sbatch to /usr/lib/berth/libexec/berth-cmd): ops/bin's are links to a shell script
   * that finds the client, for a checkout where it may not be built yet, which costs a shell's
   * start on every call. ops/bin when the client is not built.
   */
  private static Path nativeCommands(Path root, Path work) throws IOException {
    Path client = root.resolve("tools/tm/target/native/berth-cmd");
    if (!Files.isExecutable(client)) {
      return root.resolve("ops/bin");
    }
    Path bin = Files.createDirectory(work.resolve("bin"));
    bin.toFile().setReadable(true, false);
    bin.toFile().setExecutable(true, false);
    for (String command : List.of("sbatch", "squeue", "scancel", "sacct")) {
      Files.createSymbolicLink(bin.resolve(command), client);
    }
    return bin;
  }

  /**
   * Slurm's side: its own commands by their full paths (an installed Berth links commands of the
   * same names into /usr/local/bin, ahead on root's PATH); the array submitted as {@code user}.
   */
  private static Side slurm(Commands shell, Map<String, String> slurmEnv, String user) {
    ArrayJob array =
        () -> {
          List<String> argv = new ArrayList<>();
          if (!user.equals("root")) {
            argv.addAll(List.of("runuser", "-u", user, "--", "env"));
            slurmEnv.forEach((k, v) -> argv.add(k + "=" + v));
          }
          argv.addAll(
              List.of(
                  SLURM_BIN.resolve("sbatch").toString(),
                  "--parsable",
                  "--array=0-" + (FINISHED - 1),
                  "job.sh"));
          return jobId(shell.output(argv.toArray(String[]::new)));
        };
    return new Side("Slurm", SLURM_BIN, array, user);
  }

  private static boolean exists(String user) throws Exception {
    return new ProcessBuilder("id", "-u", user)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start()
            .waitFor()
        == 0;
  }

  /** sbatch --parsable prints {@code id[;cluster]}. */
  private static String jobId(String parsable) {
    String out = parsable.strip();
    int semicolon = out.indexOf(';');
    String id = semicolon < 0 ? out : out.substring(0, semicolon);
    if (!id.matches("\\d+")) {
      throw new IllegalStateException("sbatch --parsable printed " + parsable);
    }
    return id;
  }

  /** Runs the array to its end and waits until sacct lists every task. */
  private static Figures finished(Side side, Commands shell, String[] sacct) throws Exception {
    System.out.printf(
        "%n%s: an array of %,d tasks running `true`, as %s...%n",
        side.name(), FINISHED, side.jobUser());
    long begin = System.nanoTime();
    String array = side.array().submit();
    awaitEmptyQueue(side, shell);
    double seconds = (System.nanoTime() - begin) / 1e9;
    System.out.printf(
        "%s: array %s left the queue after %.0f s (%.1f jobs/s)%n",
        side.name(), array, seconds, FINISHED / seconds);
    return new Figures(FINISHED / seconds, awaitAccounted(side, shell, sacct, array));
  }

  /** Waits until squeue lists none of the job user's jobs. */
  private static void awaitEmptyQueue(Side side, Commands shell) throws Exception {
    long begin = System.currentTimeMillis();
    long told = begin;
    List<String> squeue = side.argv("squeue", "-h", "-u", side.jobUser());
    while (!shell.output(squeue.toArray(String[]::new)).isBlank()) {
      long now = System.currentTimeMillis();
      if (now - begin > WAIT_MILLIS) {
        throw new IllegalStateException(side.name() + ": the array did not finish within an hour");
      }
      if (now - told >= 120_000) {
        System.out.printf("  still running after %d s%n", (now - begin) / 1000);
        told = now;
      }
      Thread.sleep(2000);
    }
  }

  /**
   * Waits until sacct lists every task of {@code array}, each once and COMPLETED 0:0 (Slurm's
   * controller sends its records to slurmdbd as it can), and nothing else; returns the wall time of
   * that first full listing, in ms.
   */
  private static double awaitAccounted(Side side, Commands shell, String[] sacct, String array)
      throws Exception {
    long deadline = System.currentTimeMillis() + 300_000;
    while (true) {
      long begin = System.nanoTime();
      String out = shell.output(side.argv("sacct", sacct).toArray(String[]::new));
      double millis = (System.nanoTime() - begin) / 1e6;
      int listed = accounted(side.name(), out, array);
      if (listed == FINISHED) {
        System.out.printf(
            "%s: sacct lists all %,d tasks, COMPLETED 0:0; that first full listing took %.0f ms%n",
            side.name(), FINISHED, millis);
        return millis;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            side.name()
                + ": sacct lists "
                + (listed < 0 ? "unfinished tasks" : listed + " of the " + FINISHED + " tasks"));
      }
      Thread.sleep(2000);
    }
  }

  /**
   * The tasks of {@code array} that sacct's {@code -P} output lists, after checking that its header
   * is Slurm's default and that each line is a task of the array, listed once, COMPLETED with exit
   * code 0:0; -1 while some are still pending or running there (records not yet all stored).
   */
  private static int accounted(String name, String out, String array) {
    List<String> lines = out.lines().toList();
    String header = "JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode";
    if (lines.isEmpty() || !lines.get(0).equals(header)) {
      throw new IllegalStateException(name + ": sacct's header is not " + header + ":\n" + out);
    }
    Set<String> tasks = new HashSet<>();
    boolean unfinished = false;
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split("\\|", -1);
      if (f.length == 7 && f[0].startsWith(array + "_") && UNFINISHED.contains(f[5])) {
        unfinished = true;
        continue;
      }
      boolean ok =
          f.length == 7
              && f[0].matches(array + "_\\d+")
              && Integer.parseInt(f[0].substring(array.length() + 1)) < FINISHED
              && f[5].equals("COMPLETED")
              && f[6].equals("0:0")
              && tasks.add(f[0]);
      if (!ok) {
        throw new IllegalStateException(name + ": sacct listed an unexpected line: " + line);
      }
    }
    return unfinished ? -1 : tasks.size();
  }

  /** {@link #RUNS} calls of sacct on each side, alternating. */
  private static List<Commands.Timing> timeSacct(List<Side> sides, Commands shell, String[] sacct)
      throws Exception {
    System.out.printf(
        "%n%d timed calls of sacct %s on each side, alternating...%n",
        RUNS, String.join(" ", sacct));
    Map<String, Supplier<List<String>>> calls = new LinkedHashMap<>();
    for (Side side : sides) {
      calls.put(side.name() + " sacct", () -> side.argv("sacct", sacct));
    }
    shell.warm(calls, WARMUP);
    return shell.time(calls, RUNS);
  }

  /** {@link #QUEUED} held jobs submitted in a shell loop; returns jobs/s. */
  private static double submitLoop(Side side, Commands shell) throws Exception {
    System.out.printf("%s: %,d sbatch --hold in a shell loop...%n", side.name(), QUEUED);
    List<String> submit = side.argv("sbatch", "--parsable", "--hold", "job.sh");
    double seconds = shell.loop(String.join(" ", submit), QUEUED);
    List<String> queued = queuedIds(side, shell);
    if (queued.size() != QUEUED) {
      throw new IllegalStateException(
          side.name() + ": squeue lists " + queued.size() + " jobs, not " + QUEUED);
    }
    return QUEUED / seconds;
  }

  /**
   * sbatch, squeue and scancel on each side, {@link #RUNS} calls each, the six alternating, with
   * {@link #QUEUED} held jobs in each: each sbatch adds one, each scancel takes one of the queued
   * away. Checks afterwards that each side still lists {@link #QUEUED}, none of those cancelled,
   * and that sbatch prints a job id.
   */
  private static List<Commands.Timing> timeQueued(List<Side> sides, Commands shell)
      throws Exception {
    Map<String, Supplier<List<String>>> calls = new LinkedHashMap<>();
    Map<Side, List<String>> doomed = new LinkedHashMap<>();
    for (Side side : sides) {
      List<String> submit = side.argv("sbatch", "--parsable", "--hold", "job.sh");
      doomed.put(side, queuedIds(side, shell).subList(0, WARMUP + RUNS + 1));
      Deque<String> left = new ArrayDeque<>(doomed.get(side));
      calls.put(side.name() + " sbatch", () -> submit);
      calls.put(side.name() + " squeue", () -> side.argv("squeue"));
      calls.put(side.name() + " scancel", () -> side.argv("scancel", left.remove()));
    }
    System.out.printf(
        "%n%d timed calls of sbatch, squeue and scancel on each side, alternating...%n", RUNS);
    shell.warm(calls, WARMUP);
    List<Commands.Timing> timings = shell.time(calls, RUNS);
    for (Side side : sides) {
      List<String> ids = queuedIds(side, shell);
      if (ids.size() != QUEUED) {
        throw new IllegalStateException(
            side.name() + ": squeue lists " + ids.size() + " jobs, not " + QUEUED);
      }
      Set<String> left = new HashSet<>(doomed.get(side));
      left.retainAll(ids);
      if (!left.isEmpty()) {
        throw new IllegalStateException(side.name() + ": scancel left jobs queued: " + left);
      }
      jobId(
          shell.output(
              side.argv("sbatch", "--parsable", "--hold", "job.sh").toArray(String[]::new)));
    }
    return timings;
  }

  /** The ids squeue lists, after checking that every line is one. */
  private static List<String> queuedIds(Side side, Commands shell) throws Exception {
    String[] argv = side.argv("squeue", "-h", "-o", "%i").toArray(String[]::new);
    List<String> ids = shell.output(argv).lines().map(String::strip).toList();
    for (String id : ids) {
      if (!id.matches("\\d+")) {
        throw new IllegalStateException(side.name() + ": squeue -h -o %i listed " + id);
      }
    }
    return ids;
  }

  /**
   * The table: per operation, each side's median, p90 and peak resident size and Berth/Slurm;
   * {@code queued} holds sbatch, squeue and scancel of each side in turn, {@code listings} sacct.
   */
  private static void print(
      List<Side> sides,
      List<Commands.Timing> queued,
      List<Commands.Timing> listings,
      Map<String, Figures> figures,
      Map<String, Double> loops,
      String sacct) {
    int n = sides.size();
    System.out.printf(
        "%nSlurm's commands: Berth's (native client) against Slurm 22.05's (tuned, slurmdbd on"
            + " MariaDB), one call at a time from the benchmark, the two alternating%n");
    System.out.printf("%-44s %10s %10s %8s%n", "", "Berth", n > 1 ? "Slurm" : "", "ratio");
    List<String> above = new ArrayList<>();
    for (int op = 0; op < OPERATIONS.length; op++) {
      Commands.Timing[] t = new Commands.Timing[n];
      for (int s = 0; s < n; s++) {
        t[s] = op < 3 ? queued.get(s * 3 + op) : listings.get(s);
      }
      System.out.println(OPERATIONS[op] + ":");
      if (row("  median ms", t, Commands.Timing::median)) {
        above.add(OPERATIONS[op] + ": median");
      }
      if (row("  p90 ms", t, Commands.Timing::p90)) {
        above.add(OPERATIONS[op] + ": p90");
      }
      if (row("  peak resident kB", t, x -> x.peakKb())) {
        above.add(OPERATIONS[op] + ": peak resident size");
      }
    }
    System.out.println("besides (more is better):");
    row(
        "  " + String.format("%,d", QUEUED) + " sbatch --hold in a loop, jobs/s",
        loops.values().stream().mapToDouble(Double::doubleValue).toArray());
    row(
        "  the array, submitted to gone, jobs/s",
        figures.values().stream().mapToDouble(Figures::arrayJobsPerSecond).toArray());
    System.out.println("besides (less is better):");
    row(
        "  sacct's first full listing, ms",
        figures.values().stream().mapToDouble(Figures::firstSacctMillis).toArray());
    System.out.printf(
        "%nsacct's options, on both: %s%n"
            + "the finished jobs: a %,d-task array of `true` on 2 CPUs with cgroups, as one user"
            + " (Berth: qsub -t 0-%d; Slurm: sbatch --array=0-%d),"
            + " each task listed once, COMPLETED 0:0; both controllers forget a job %d s after it"
            + " ends (keep_completed, MinJobAge)%n"
            + "timings: %d calls of each, spawned from the benchmark, both sides' alternating,"
            + " after %d untimed ones of each (a server's first calls of a command compile its"
            + " path); Berth's commands as its package installs them, links to the native client;"
            + " peak resident size of one more call (GNU time)%n",
        sacct, FINISHED, FINISHED - 1, FINISHED - 1, KEEP_SECONDS, RUNS, WARMUP);
    if (n > 1) {
      System.out.println(
          above.isEmpty()
              ? "Berth's is at most Slurm's own on every row"
              : "Berth's is above Slurm's own on: " + String.join("; ", above));
    }
  }

  private interface Of {
    double of(Commands.Timing t);
  }

  /** A row of timings; whether Berth's is above Slurm's. */
  private static boolean row(String what, Commands.Timing[] t, Of of) {
    double[] values = new double[t.length];
    for (int i = 0; i < t.length; i++) {
      values[i] = of.of(t[i]);
    }
    return row(what, values);
  }

  /** A row: Berth's value, Slurm's and their ratio when there is one; whether Berth's is above. */
  private static boolean row(String what, double[] values) {
    if (values.length < 2) {
      System.out.printf("%-44s %10.1f %10s %8s%n", what, values[0], "-", "-");
      return false;
    }
    System.out.printf(
        "%-44s %10.1f %10.1f %8.2f%n", what, values[0], values[1], values[0] / values[1]);
    return values[0] > values[1];
  }
}
