package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jobs on real moms: a server process and three {@code berth mom} processes on this host (n1 with
 * CPUs 0-1, n2 with 0, n3 with 1, each with its own host name and cgroup root). Measures jobs per
 * second through one node running {@code true}, the mother superior's time from JOIN_JOB to the
 * script's exec and from the script's end to the obit (from the moms' own log lines), and the wall
 * time of {@code pbsdsh true} and of an MPI launch of a trivial program on three nodes. Every job
 * must end with exit status 0: a benchmark of jobs that failed measures nothing.
 */
final class NodeBench implements AutoCloseable {
  private static final Pattern STARTED =
      Pattern.compile("started as session \\d+, ([0-9.]+) ms after JOIN_JOB");
  private static final Pattern TORN_DOWN =
      Pattern.compile("torn down on every node in ([0-9.]+) ms");

  private final Path root;
  private final Trust trust;
  private final Comparison results;
  private final MomCluster cluster;

  /** Daemons trusted as {@code trust} says; what is measured also goes into {@code results}. */
  NodeBench(Path root, Trust trust, Comparison results) throws IOException, InterruptedException {
    this.root = root;
    this.trust = trust;
    this.results = results;
    this.cluster = new MomCluster(root, trust);
  }

  void run() throws Exception {
    cluster.start();
    System.out.printf("%nthree moms on this host; jobs run as %s%n", cluster.jobUser());
    double joined =
        cluster.startMom("n1", "0-1") + cluster.startMom("n2", "0") + cluster.startMom("n3", "1");
    System.out.printf("  moms up (started to node free): mean %.1f s%n", joined / 3);
    record("mom started to node free, s", joined / 3);
    for (boolean cgroups : new boolean[] {false, true}) {
      String setting = cgroups ? "True" : "False";
      cluster.qmgr("set server cgroup_enable = " + setting);
      System.out.printf("%njobs on moms, cgroup_enable = %s:%n", setting);
      String measures = cgroups ? ", cgroups on" : ", cgroups off";
      throughput(400, measures);
      joinAndTeardown(40, measures);
    }
    tasks();
  }

  private void record(String measure, double value) {
    results.add(measure, trust, value);
  }

  /**
   * Jobs per second through n1 (2 CPUs): all queued first, then the node is let go; and the CPU
   * time the server and n1's mom spent per job meanwhile. Enough jobs that the daemons' start-up
   * (the JIT compiling their crypto, say) weighs little. {@code cgroups} ends the measures' names.
   */
  private void throughput(int jobs, String cgroups) throws Exception {
    cluster.cli("pbsnodes", "-o", "n1");
    String array = cluster.submit("true\n", "-t", "1-" + jobs, "-l", "nodes=n1:ppn=1");
    long serverPid = cluster.serverPid();
    long momPid = cluster.momPid("n1");
    double serverCpu = CpuTime.millis(serverPid);
    double momCpu = CpuTime.millis(momPid);
    long begin = System.nanoTime();
    cluster.cli("pbsnodes", "-c", "n1");
    cluster.awaitSucceeded(array, jobs);
    double seconds = (System.nanoTime() - begin) / 1e9;
    serverCpu = (CpuTime.millis(serverPid) - serverCpu) / jobs;
    momCpu = (CpuTime.millis(momPid) - momCpu) / jobs;
    System.out.printf(
        "  %d jobs running `true` through one node with 2 CPUs: %.1f s, %.1f jobs/s; CPU per job:"
            + " server %.1f ms, mom %.1f ms%n",
        jobs, seconds, jobs / seconds, serverCpu, momCpu);
    record("jobs/s through one node" + cgroups, jobs / seconds);
    record("server CPU ms per job" + cgroups, serverCpu);
    record("mom CPU ms per job" + cgroups, momCpu);
  }

  /** Two-node jobs on n2 (mother superior) and n3, one at a time: the moms' own timings. */
  private void joinAndTeardown(int jobs, String cgroups) throws Exception {
    Path log = cluster.momLog("n2");
    long from = Files.size(log);
    String array = cluster.submit("true\n", "-t", "1-" + jobs, "-l", "nodes=n2:ppn=1+n3:ppn=1");
    cluster.awaitSucceeded(array, jobs);
    Thread.sleep(500);
    String lines = Files.readString(log).substring((int) from);
    double[] join = values(STARTED, lines);
    double[] teardown = values(TORN_DOWN, lines);
    System.out.printf(
        "  two-node jobs: JOIN_JOB to script exec median %.1f ms, p90 %.1f ms (%d jobs)%n",
        median(join), p90(join), join.length);
    System.out.printf(
        "  two-node jobs: script end to obit, every node torn down, median %.1f ms, p90 %.1f ms%n",
        median(teardown), p90(teardown));
    record("2-node JOIN_JOB to exec median ms" + cgroups, median(join));
    record("2-node JOIN_JOB to exec p90 ms" + cgroups, p90(join));
    record("2-node script end to obit median ms" + cgroups, median(teardown));
  }

  /** pbsdsh and mpirun across three nodes, timed inside one job. */
  private void tasks() throws Exception {
    cluster.qmgr("set server cgroup_enable = True");
    Files.writeString(
        cluster.work().resolve("trivial.c"),
        "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0;"
            + " }\n");
    List<String> compile = new ArrayList<>(List.of("mpicc", "-o", "trivial", "trivial.c"));
    if (cluster.user() != null) {
      compile.addAll(0, List.of("runuser", "-u", cluster.user(), "--"));
    }
    boolean mpi =
        new ProcessBuilder(compile)
                .directory(cluster.work().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start()
                .waitFor()
            == 0;
    String pbsdsh = root.resolve("ops/bin/pbsdsh").toString();
    String script =
        "cd $PBS_O_WORKDIR\n"
            + "for i in $(seq 20); do s=$(date +%s%N); "
            + pbsdsh
            + " true; e=$(date +%s%N); echo PBSDSH $(( (e - s) / 1000 )); done\n"
            + (mpi
                ? "for i in $(seq 10); do s=$(date +%s%N); mpirun --hostfile $PBS_NODEFILE"
                    + " ./trivial; e=$(date +%s%N); echo MPIRUN $(( (e - s) / 1000 )); done\n"
                : "");
    String id =
        cluster.submit(
            script,
            "-l",
            "nodes=n1:ppn=1+n2:ppn=1+n3:ppn=1",
            "-v",
            "OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
            "-o",
            cluster.work().resolve("tasks.out").toString());
    cluster.awaitSucceeded(id, 1);
    String out = Files.readString(cluster.work().resolve("tasks.out"));
    double[] dsh = values(Pattern.compile("PBSDSH (\\d+)"), out);
    System.out.printf(
        "%npbsdsh true on 3 nodes (cgroups): median %.1f ms, p90 %.1f ms, min %.1f ms (%d runs)%n",
        median(dsh) / 1000, p90(dsh) / 1000, min(dsh) / 1000, dsh.length);
    record("pbsdsh true on 3 nodes median ms", median(dsh) / 1000);
    if (mpi) {
      double[] run = values(Pattern.compile("MPIRUN (\\d+)"), out);
      System.out.printf(
          "mpirun of a trivial program on 3 nodes (Open MPI, cgroups): median %.0f ms, p90 %.0f ms"
              + " (%d runs)%n",
          median(run) / 1000, p90(run) / 1000, run.length);
      record("mpirun trivial on 3 nodes median ms", median(run) / 1000);
    } else {
      System.out.println("mpirun: skipped, mpicc is not installed (openmpi-bin, libopenmpi-dev)");
    }
    if (dsh.length == 0) {
      System.out.println("the tasks job wrote:\n" + out);
    }
  }

  private static double[] values(Pattern pattern, String text) {
    Matcher m = pattern.matcher(text);
    List<Double> values = new ArrayList<>();
    while (m.find()) {
      values.add(Double.parseDouble(m.group(1)));
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    return v;
  }

  private static double median(double[] sorted) {
    return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
  }

  private static double p90(double[] sorted) {
    return sorted.length == 0 ? Double.NaN : sorted[(int) (sorted.length * 0.9)];
  }

  private static double min(double[] sorted) {
    return sorted.length == 0 ? Double.NaN : sorted[0];
  }

  @Override
  public void close() throws Exception {
    cluster.close();
  }
}
