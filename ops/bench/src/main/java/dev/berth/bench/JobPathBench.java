package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The path of short jobs through one node with both CPUs, cgroups on, jobs running {@code true} as
 * berth-alice, Berth and Slurm side by side: 200 held jobs released at once and drained (jobs/s,
 * and the machine's CPU per job; forty such drains first warm both up, and the median of the next
 * five counts), and single jobs from submission until the status command shows them done (ms). The
 * job's own cost, its owner's login shell running {@code true}, is measured apart. Each job writes
 * a line to its output file, and every one must be there: a benchmark of jobs that failed measures
 * nothing.
 */
final class JobPathBench {
  private static final int DRAINED = 200;
  private static final int SINGLES = 20;

  /**
   * Unmeasured drains first, for both managers: a resource manager's daemons run for months, and
   * Berth's JVMs are still compiling the job path after the first thousand jobs (HotSpot's C2
   * compiles a method after some thousands of calls, and most of the path runs once per job), and a
   * long tail of the rarely called (cluster gossip, remoting, logging) after 4,000: the compilers
   * took 1-3 ms of the mom's 7 ms per job in drains 20 to 25, about 0.1 ms after 8,000 jobs. Each
   * drain prints its own figures.
   */
  private static final int WARM_UP_DRAINS = 40;

  /**
   * Measured drains after the warm-up: one drain's rate varies by up to a fifth from the next (the
   * collectors, a late compilation, how many inodes the file system freed in the last half minute),
   * so the figures are those of the median drain.
   */
  private static final int MEASURED_DRAINS = 5;

  /** What one manager measured; CPU in milliseconds per drained job. */
  private record Measured(
      double drainPerSecond, double machineCpu, String daemonsCpu, double[] singleMillis) {}

  /** One drain: jobs per second, and CPU used while it ran, in milliseconds per job. */
  private record Drain(double perSecond, Usage cpu) {}

  /**
   * CPU time used so far, in milliseconds: the machine's, and Berth's daemons' with their JIT
   * compilers' part (zero for Slurm).
   */
  private record Usage(double machine, double server, double serverJit, double mom, double momJit) {
    static Usage now(MomCluster cluster, boolean berth) throws Exception {
      double machine = CpuTime.machineMillis();
      if (!berth) {
        return new Usage(machine, 0, 0, 0, 0);
      }
      long server = cluster.serverPid();
      long mom = cluster.momPid("n1");
      return new Usage(
          machine,
          CpuTime.millis(server),
          CpuTime.compilerMillis(server),
          CpuTime.millis(mom),
          CpuTime.compilerMillis(mom));
    }

    Usage perJobSince(Usage before, int jobs) {
      return new Usage(
          (machine - before.machine) / jobs,
          (server - before.server) / jobs,
          (serverJit - before.serverJit) / jobs,
          (mom - before.mom) / jobs,
          (momJit - before.momJit) / jobs);
    }

    String daemons() {
      return String.format(
          "server %.1f (JIT compiling %.1f), mom %.1f (JIT compiling %.1f)",
          server, serverJit, mom, momJit);
    }
  }

  private JobPathBench() {}

  static void run(Path root) throws Exception {
    Optional<Path> slurmScripts = Slurm.scripts(root);
    Measured berth;
    double[] loginShell;
    double[] plainShell;
    try (MomCluster cluster = new MomCluster(root, Trust.TLS)) {
      cluster.start();
      cluster.startMom("n1", "0-1");
      cluster.qmgr("set server cgroup_enable = True");
      System.out.printf(
          "%njob path: one node, 2 CPUs, cgroups on, jobs as %s%n", cluster.jobUser());
      System.out.println(movesIntoCgroups());
      loginShell = shellMillis(cluster, "bash -l -c true");
      plainShell = shellMillis(cluster, "bash -c true");
      berth = measure(cluster, Map.of(), BERTH);
    }
    Measured slurm = null;
    if (slurmScripts.isPresent()) {
      try (MomCluster shells = new MomCluster(root, Trust.TLS);
          Slurm running = Slurm.start(slurmScripts.get(), "tuned")) {
        slurm = measure(shells, running.env(), SLURM);
      }
    }
    print(berth, slurm, loginShell, plainShell);
  }

  /**
   * Whether this kernel makes moves into cgroups wait for an RCU grace period, for both managers
   * alike: the largest wait in a short job's start unless a hierarchy is mounted with favordynmods
   * (docs/admin-guide.md).
   */
  private static String movesIntoCgroups() throws IOException {
    return Files.readString(Path.of("/proc/self/mountinfo")).contains("favordynmods")
        ? "cgroup moves: a hierarchy is mounted with favordynmods, moves do not wait"
        : "cgroup moves: no hierarchy is mounted with favordynmods,"
            + " each move waits for an RCU grace period";
  }

  /**
   * A manager's commands as shell text: job.sh is the job's script, ID a job id, IDS the held ones;
   * {@code outputs} matches the jobs' output files in the working directory. {@code pending} counts
   * the jobs not yet done the cheapest way each manager offers, since the drain asks it every 50
   * ms: squeue lists pending and running jobs only, and Berth's qstat -B counts by state (its plain
   * qstat lists completed jobs too, for keep_completed's 300 s: by the twentieth drain some 4,000
   * lines a call).
   */
  private record Commands(
      String name,
      String submitHeld,
      String release,
      String pending,
      String submit,
      String done,
      String outputs) {}

  private static final Commands BERTH =
      new Commands(
          "Berth",
          "qsub -h -j oe job.sh",
          "qrls IDS",
          "qstat -B | awk 'NR == 3 {print $4 + $5 + $6 + $7 + $8 + $9}'",
          "qsub -j oe job.sh",
          "qstat -f ID | grep -q 'job_state = C'",
          "job.sh.o*");

  private static final Commands SLURM =
      new Commands(
          "Slurm",
          "sbatch --parsable --hold job.sh",
          "scontrol release IDS",
          "squeue -h | wc -l",
          "sbatch --parsable job.sh",
          "st=$(squeue -h -t all -j ID -o %T 2>/dev/null); [ -z \"$st\" ] || [ \"$st\" = COMPLETED ]",
          "slurm-*.out");

  private static Measured measure(MomCluster cluster, Map<String, String> env, Commands c)
      throws Exception {
    Files.writeString(cluster.work().resolve("job.sh"), "#!/bin/sh\ntrue\necho done\n");
    String clean = "rm -f " + c.outputs();
    cluster.shell(clean, env);
    System.out.printf(
        "%s: %d held jobs released, %d times (the first %d warm up)...%n",
        c.name(), DRAINED, WARM_UP_DRAINS + MEASURED_DRAINS, WARM_UP_DRAINS);
    boolean berth = c == BERTH;
    List<Drain> measured = new ArrayList<>();
    for (int i = 0; i < WARM_UP_DRAINS + MEASURED_DRAINS; i++) {
      Drain d = drain(cluster, env, c);
      cluster.shell(clean, env);
      System.out.printf(
          "  drain %d: %.1f jobs/s, machine CPU %.1f ms per job%s%n",
          i + 1, d.perSecond(), d.cpu().machine(), berth ? "; " + d.cpu().daemons() : "");
      if (i >= WARM_UP_DRAINS) {
        measured.add(d);
      }
    }
    measured.sort(Comparator.comparingDouble(Drain::perSecond));
    Drain median = measured.get(measured.size() / 2);
    System.out.printf(
        "%s: the median of the last %d drains, %.1f jobs/s (%.1f to %.1f)%n",
        c.name(),
        MEASURED_DRAINS,
        median.perSecond(),
        measured.get(0).perSecond(),
        measured.get(measured.size() - 1).perSecond());
    System.out.printf("%s: %d single jobs, submit to done...%n", c.name(), SINGLES);
    String singles =
        cluster.shell(
            "i=0; while [ $i -lt "
                + SINGLES
                + " ]; do s=$(date +%s%N); id=$("
                + c.submit()
                + " | cut -d';' -f1) || exit 1; while ! { "
                + c.done().replace("ID", "$id")
                + "; }; do :; done; e=$(date +%s%N); echo $(( (e - s) / 1000 )); i=$((i+1));"
                + " done",
            env);
    checkOutputs(cluster, env, c, SINGLES);
    cluster.shell(clean, env);
    double[] millis =
        Arrays.stream(singles.strip().split("\n"))
            .mapToDouble(v -> Long.parseLong(v) / 1e3)
            .sorted()
            .toArray();
    return new Measured(median.perSecond(), median.cpu().machine(), median.cpu().daemons(), millis);
  }

  /**
   * {@value #DRAINED} held jobs released at once: jobs per second until none is left, and the CPU
   * used from the release on (the submissions before it are not counted).
   */
  private static Drain drain(MomCluster cluster, Map<String, String> env, Commands c)
      throws Exception {
    String ids =
        cluster.shell(
            "i=0; while [ $i -lt "
                + DRAINED
                + " ]; do "
                + c.submitHeld()
                + " | cut -d';' -f1 || exit 1; i=$((i+1)); done",
            env);
    String list = String.join(c.name().equals("Slurm") ? "," : " ", ids.strip().split("\\n"));
    Usage before = Usage.now(cluster, c == BERTH);
    long begin = System.nanoTime();
    cluster.shell(
        c.release().replace("IDS", list)
            + "; while [ \"$("
            + c.pending()
            + ")\" != 0 ]; do sleep 0.05; done",
        env);
    double perSecond = DRAINED / ((System.nanoTime() - begin) / 1e9);
    Usage used = Usage.now(cluster, c == BERTH).perJobSince(before, DRAINED);
    checkOutputs(cluster, env, c, DRAINED);
    return new Drain(perSecond, used);
  }

  /** Every job wrote its line (the drain waits for the queue to empty, the files may lag). */
  private static void checkOutputs(
      MomCluster cluster, Map<String, String> env, Commands c, int jobs) throws Exception {
    String script =
        "n=0; while [ $n -lt 500 ]; do c=$(cat "
            + c.outputs()
            + " 2>/dev/null | grep -c '^done$'); [ \"$c\" -ge "
            + jobs
            + " ] && exit 0; sleep 0.02; n=$((n+1)); done; echo \"only $c of "
            + jobs
            + " jobs wrote their output\"; for f in "
            + c.outputs()
            + "; do [ \"$(cat \"$f\")\" = done ] || echo \"$f: $(head -c 300 \"$f\")\"; done;"
            + " exit 1";
    try {
      cluster.shell(script, env);
    } catch (IllegalStateException e) {
      if (c != BERTH) {
        throw e;
      }
      List<String> warnings =
          Files.readAllLines(cluster.momLog("n1")).stream()
              .filter(l -> l.contains("WARN") || l.contains("ERROR"))
              .limit(20)
              .toList();
      throw new IllegalStateException(
          e.getMessage() + "\nthe mom's warnings:\n" + String.join("\n", warnings), e);
    }
  }

  /** The job user's shell running {@code true}, {@value #SINGLES} times; sorted milliseconds. */
  private static double[] shellMillis(MomCluster cluster, String command) throws Exception {
    String out =
        cluster.shell(
            "i=0; while [ $i -lt "
                + SINGLES
                + " ]; do s=$(date +%s%N); "
                + command
                + "; e=$(date +%s%N); echo $(( (e - s) / 1000 )); i=$((i+1)); done",
            Map.of());
    return Arrays.stream(out.strip().split("\n"))
        .mapToDouble(v -> Long.parseLong(v) / 1e3)
        .sorted()
        .toArray();
  }

  private static void print(Measured berth, Measured slurm, double[] login, double[] plain) {
    System.out.printf(
        "%njob path, %d-job drain and %d single jobs (Slurm 22.05, tuned)%n", DRAINED, SINGLES);
    System.out.printf("%-46s %10s %10s %8s%n", "", "Berth", "Slurm", "ratio");
    row(
        "released held jobs drained, jobs/s",
        berth.drainPerSecond(),
        slurm == null ? null : slurm.drainPerSecond());
    row(
        "  machine CPU per drained job, ms",
        berth.machineCpu(),
        slurm == null ? null : slurm.machineCpu());
    for (var p : List.of(Map.entry("median", 0.5), Map.entry("p90", 0.9), Map.entry("min", 0.0))) {
      row(
          "submit to shown done, " + p.getKey() + " ms",
          at(berth.singleMillis(), p.getValue()),
          slurm == null ? null : at(slurm.singleMillis(), p.getValue()));
    }
    System.out.printf("  of it Berth's daemons, ms per job: %s%n", berth.daemonsCpu());
    System.out.printf(
        "the job's own shell: bash -l -c true median %.1f ms (p90 %.1f), bash -c true %.1f ms%n",
        at(login, 0.5), at(login, 0.9), at(plain, 0.5));
  }

  private static double at(double[] sorted, double quantile) {
    return sorted[Math.min(sorted.length - 1, (int) (sorted.length * quantile))];
  }

  private static void row(String what, double berth, Double slurm) {
    if (slurm == null) {
      System.out.printf("%-46s %10.1f %10s %8s%n", what, berth, "-", "-");
    } else {
      System.out.printf("%-46s %10.1f %10.1f %8.2f%n", what, berth, slurm, berth / slurm);
    }
  }
}
