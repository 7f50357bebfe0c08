package dev.berth.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An interactive job's round trip, Berth and Slurm side by side: one node with both CPUs, cgroups
 * on, as berth-alice on a pseudo-terminal of its own (util-linux {@code script}), a command that
 * prints its job id run as an interactive job until its output is back and the command has ended:
 * {@code qsub -I -x} against {@code srun --pty}. Each must print its job id: a round trip that
 * failed measures nothing. A few unmeasured rounds warm both up first.
 */
final class InteractiveBench {
  private static final int WARM_UP = 5;
  private static final int MEASURED = 15;

  private InteractiveBench() {}

  static void run(Path root) throws Exception {
    Optional<Path> slurmScripts = Slurm.scripts(root);
    double[] berth;
    try (MomCluster cluster = new MomCluster(root, Trust.TLS)) {
      cluster.start();
      cluster.startMom("n1", "0-1");
      cluster.qmgr("set server cgroup_enable = True");
      System.out.printf(
          "%ninteractive jobs: one node, 2 CPUs, cgroups on, as %s on a terminal%n",
          cluster.jobUser());
      String berthCommand = "qsub -I -x 'echo ran-$PBS_JOBID'";
      times(cluster, berthCommand, Map.of(), WARM_UP);
      berth = times(cluster, berthCommand, Map.of(), MEASURED);
    }
    double[] slurm = null;
    if (slurmScripts.isPresent()) {
      try (MomCluster shells = new MomCluster(root, Trust.TLS);
          Slurm running = Slurm.start(slurmScripts.get(), "tuned")) {
        String slurmCommand = "srun --pty sh -c 'echo ran-$SLURM_JOB_ID'";
        times(shells, slurmCommand, running.env(), WARM_UP);
        slurm = times(shells, slurmCommand, running.env(), MEASURED);
      }
    }
    System.out.printf("%n%-46s %10s %10s %8s%n", "", "Berth", "Slurm", "ratio");
    for (var p : Map.of("median", 0.5, "p90", 0.9, "min", 0.0).entrySet()) {
      double b = at(berth, p.getValue());
      String s = slurm == null ? "-" : String.format("%.0f", at(slurm, p.getValue()));
      String ratio = slurm == null ? "-" : String.format("%.2f", b / at(slurm, p.getValue()));
      System.out.printf(
          "%-46s %10.0f %10s %8s%n",
          "command on a terminal, round trip, " + p.getKey() + " ms", b, s, ratio);
    }
    System.out.printf("(%d round trips each, after %d unmeasured)%n", MEASURED, WARM_UP);
  }

  /**
   * Runs {@code command} {@code rounds} times on a terminal of its own, each timed until it has
   * ended; every round must have printed its job id. Sorted milliseconds.
   */
  private static double[] times(
      MomCluster shells, String command, Map<String, String> env, int rounds) throws Exception {
    String quoted = command.replace("$", "\\$");
    String out =
        shells.shell(
            "i=0; while [ $i -lt "
                + rounds
                + " ]; do s=$(date +%s%N); out=$(script -qfec \""
                + quoted
                + "\" /dev/null); e=$(date +%s%N); case \"$out\" in *ran-[0-9]*) ;; *) echo"
                + " \"no job id in: $out\" >&2; exit 1 ;; esac; echo $(( (e - s) / 1000 ));"
                + " i=$((i+1)); done",
            withShell(env));
    return Arrays.stream(out.strip().split("\n"))
        .mapToDouble(v -> Long.parseLong(v.strip()) / 1e3)
        .sorted()
        .toArray();
  }

  /** {@code script} runs the command with the user's SHELL: a plain one, alike for both. */
  private static Map<String, String> withShell(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.put("SHELL", "/bin/sh");
    return all;
  }

  private static double at(double[] sorted, double fraction) {
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
  }
}
