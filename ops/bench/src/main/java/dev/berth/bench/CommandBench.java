package dev.berth.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The commands as scripts and workflow engines call them, Berth's (the native client) and Slurm's
 * side by side in one run: 1,000 sequential submissions in a shell loop, then with those 1,000 jobs
 * queued (held, so that nothing runs) the wall time per call of submitting, listing every job,
 * showing one job and deleting one, the peak resident size of a call, 1,000 calls showing one job
 * in a shell loop, and 64 such loops at once. Berth's Java commands (BERTH_CLI=java, from the
 * class-data archive) are timed too, for what the native client saves.
 */
final class CommandBench {
  private static final int SEQUENTIAL = 1000;
  private static final int RUNS = 30;
  private static final int LOOPS = 64;
  private static final int CALLS_EACH = 20;

  /** One resource manager's four operations, as argv with {@code ID} for a job id. */
  private record Manager(
      String name,
      Commands shell,
      List<String> submit,
      List<String> list,
      List<String> show,
      List<String> delete) {

    static List<String> with(List<String> argv, String id) {
      return argv.stream().map(a -> a.equals("ID") ? id : a).toList();
    }

    String submitted() throws Exception {
      String out = shell.output(submit.toArray(String[]::new)).strip();
      int semicolon = out.indexOf(';'); // sbatch --parsable: id[;cluster]
      return semicolon < 0 ? out : out.substring(0, semicolon);
    }
  }

  /** What one manager measured. */
  private record Measured(
      double submitsPerSecond,
      double showsPerSecond,
      List<Commands.Timing> timings,
      Commands.Parallel parallel) {}

  private CommandBench() {}

  static void run(Path root) throws Exception {
    Optional<Path> slurmScripts = Slurm.scripts(root);
    Measured berth;
    List<Commands.Timing> javaTimings;
    try (BenchServer server = new BenchServer(root, Trust.TLS)) {
      server.start();
      server.acceptJobs();
      Path work = Files.createTempDirectory(server.home, "work");
      Files.writeString(
          work.resolve("job.pbs"), "#!/bin/sh\n#PBS -N clibench\n#PBS -l walltime=1:00:00\ntrue\n");
      Map<String, String> env =
          Map.of(
              "BERTH_SERVER",
              server.socket.toString(),
              "PATH",
              root.resolve("ops/bin") + ":" + System.getenv("PATH"));
      Manager manager =
          new Manager(
              "Berth",
              new Commands(work, env),
              List.of("qsub", "-h", "job.pbs"),
              List.of("qstat"),
              List.of("qstat", "-f", "ID"),
              List.of("qdel", "ID"));
      berth = measure(manager);
      javaTimings = javaCommands(root, manager, work, env);
    }
    Measured slurm = null;
    if (slurmScripts.isPresent()) {
      try (Slurm running = Slurm.start(slurmScripts.get(), "tuned")) {
        Path work = Files.createTempDirectory(Path.of("/tmp"), "berth-bench-sbatch");
        try {
          Files.writeString(work.resolve("job.sh"), "#!/bin/sh\ntrue\n");
          slurm =
              measure(
                  new Manager(
                      "Slurm",
                      new Commands(work, running.env()),
                      List.of("sbatch", "--parsable", "--hold", "job.sh"),
                      List.of("squeue"),
                      List.of("scontrol", "show", "job", "ID"),
                      List.of("scancel", "ID")));
        } finally {
          try (var files = Files.walk(work)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
          }
        }
      }
    }
    print(berth, slurm, javaTimings);
  }

  private static Measured measure(Manager m) throws Exception {
    System.out.printf("%n%s: %,d sequential submissions...%n", m.name(), SEQUENTIAL);
    double submitSeconds = m.shell().loop(String.join(" ", m.submit()), SEQUENTIAL);
    String shown = m.submitted();
    Deque<String> doomed = new ArrayDeque<>();
    for (int i = 0; i < RUNS + 1; i++) {
      doomed.add(m.submitted());
    }
    Map<String, Supplier<List<String>>> calls = new LinkedHashMap<>();
    calls.put(String.join(" ", m.submit()), m::submit);
    calls.put(String.join(" ", m.list()), m::list);
    calls.put(String.join(" ", m.show()), () -> Manager.with(m.show(), shown));
    calls.put(String.join(" ", m.delete()), () -> Manager.with(m.delete(), doomed.remove()));
    System.out.printf("%s: %d timed calls of each command...%n", m.name(), RUNS);
    List<Commands.Timing> timings = m.shell().time(calls, RUNS);
    String showLine = String.join(" ", Manager.with(m.show(), shown));
    double showSeconds = m.shell().loop(showLine, SEQUENTIAL);
    System.out.printf("%s: %d loops at once...%n", m.name(), LOOPS);
    Commands.Parallel parallel = m.shell().parallel(showLine, LOOPS, CALLS_EACH);
    return new Measured(SEQUENTIAL / submitSeconds, SEQUENTIAL / showSeconds, timings, parallel);
  }

  /** Berth's Java commands from their class-data archive, for comparison. */
  private static List<Commands.Timing> javaCommands(
      Path root, Manager m, Path work, Map<String, String> env) throws Exception {
    Commands archive = new Commands(work, env);
    archive.output(root.resolve("ops/bin/berth-cli-archive").toString());
    Map<String, String> javaEnv = new HashMap<>(env);
    javaEnv.put("BERTH_CLI", "java");
    Commands shell = new Commands(work, javaEnv);
    String shown = m.submitted();
    Map<String, Supplier<List<String>>> calls = new LinkedHashMap<>();
    calls.put(String.join(" ", m.submit()), m::submit);
    calls.put(String.join(" ", m.list()), m::list);
    calls.put(String.join(" ", m.show()), () -> Manager.with(m.show(), shown));
    return shell.time(calls, 10);
  }

  private static void print(Measured berth, Measured slurm, List<Commands.Timing> java) {
    System.out.printf(
        "%ncommands from the shell, %,d jobs queued in each (Berth: native client; Slurm 22.05,"
            + " tuned)%n",
        SEQUENTIAL);
    System.out.printf("%-44s %10s %10s %8s%n", "", "Berth", "Slurm", "ratio");
    row(
        "sequential submissions in a loop, jobs/s",
        berth.submitsPerSecond(),
        slurm,
        s -> s.submitsPerSecond());
    row("show one job in a loop, calls/s", berth.showsPerSecond(), slurm, s -> s.showsPerSecond());
    String[] ops = {"submit", "list all", "show one", "delete one"};
    for (int i = 0; i < ops.length; i++) {
      int op = i;
      row(
          ops[i] + ": median ms",
          berth.timings().get(i).median(),
          slurm,
          s -> s.timings().get(op).median());
      row(ops[i] + ": p90 ms", berth.timings().get(i).p90(), slurm, s -> s.timings().get(op).p90());
      row(
          ops[i] + ": peak resident kB",
          berth.timings().get(i).peakKb(),
          slurm,
          s -> s.timings().get(op).peakKb());
    }
    row(
        LOOPS + " loops of " + CALLS_EACH + " shows at once, calls/s",
        berth.parallel().callsPerSecond(),
        slurm,
        s -> s.parallel().callsPerSecond());
    row(
        "  one loop's wall time: median s",
        berth.parallel().medianLoop(),
        slurm,
        s -> s.parallel().medianLoop());
    row(
        "  one loop's wall time: longest s",
        berth.parallel().maxLoop(),
        slurm,
        s -> s.parallel().maxLoop());
    System.out.println("\nthe commands each run (30 calls each, interleaved):");
    for (Commands.Timing t : berth.timings()) {
      System.out.printf("  Berth  %s%n", t.command());
    }
    if (slurm != null) {
      for (Commands.Timing t : slurm.timings()) {
        System.out.printf("  Slurm  %s%n", t.command());
      }
    }
    System.out.println(
        "\nBerth's Java commands (BERTH_CLI=java, class-data archive), 10 calls each:");
    for (Commands.Timing t : java) {
      System.out.printf(
          "  %-20s median %6.1f ms  p90 %6.1f ms  peak %,d kB%n",
          t.command(), t.median(), t.p90(), t.peakKb());
    }
  }

  private static void row(
      String what, double berth, Measured slurm, ToDoubleFunction<Measured> of) {
    if (slurm == null) {
      System.out.printf("%-44s %10.1f %10s %8s%n", what, berth, "-", "-");
      return;
    }
    double s = of.applyAsDouble(slurm);
    System.out.printf("%-44s %10.1f %10.1f %8.2f%n", what, berth, s, berth / s);
  }
}
