package dev.berth.bench;

import dev.berth.client.BerthClient;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.StatJobs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
  private static final Pattern JOIN_AT = Pattern.compile("moms join at (\\S+)");
  private static final Pattern STARTED =
      Pattern.compile("started as session \\d+, ([0-9.]+) ms after JOIN_JOB");
  private static final Pattern TORN_DOWN =
      Pattern.compile("torn down on every node in ([0-9.]+) ms");

  private final Path root;
  private final Trust trust;
  private final Comparison results;
  private final BenchServer server;
  private final Path work;
  private final String cgroupRoot;
  private final Map<String, Process> moms = new LinkedHashMap<>();

  /**
   * Who the jobs run as: berth-alice when the tests' user exists (ops/test makes it), since root's
   * login profile on a developer machine can take longer than the job itself.
   */
  private final String user;

  /** Daemons trusted as {@code trust} says; what is measured also goes into {@code results}. */
  NodeBench(Path root, Trust trust, Comparison results) throws IOException, InterruptedException {
    this.root = root;
    this.trust = trust;
    this.results = results;
    this.server = new BenchServer(root, trust);
    this.work = Files.createTempDirectory(server.home, "work");
    this.cgroupRoot = "berth-bench-" + server.home.getFileName();
    this.user = run(List.of("id", "-u", JOB_USER)) == 0 ? JOB_USER : null;
    if (user != null) {
      run(List.of("chown", user, work.toString()));
      run(List.of("chmod", "755", server.home.toString()));
    }
  }

  private static final String JOB_USER = "berth-alice";

  private static int run(List<String> argv) throws IOException {
    try {
      return new ProcessBuilder(argv)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  void run() throws Exception {
    server.start();
    System.out.printf(
        "%nthree moms on this host; jobs run as %s%n",
        user != null ? user : "root (create berth-alice to leave root's login profile out)");
    String address = joinAddress();
    qmgr("set server node_check_rate = 4");
    if (user == null) {
      qmgr("set server acl_roots = root"); // root's jobs are refused unless allowed twice
    }
    double joined =
        startMom(address, "n1", "0-1")
            + startMom(address, "n2", "0")
            + startMom(address, "n3", "1");
    System.out.printf("  moms up (started to node free): mean %.1f s%n", joined / 3);
    record("mom started to node free, s", joined / 3);
    for (boolean cgroups : new boolean[] {false, true}) {
      String setting = cgroups ? "True" : "False";
      qmgr("set server cgroup_enable = " + setting);
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
    cli("pbsnodes", "-o", "n1");
    String array = submit("true\n", "-t", "1-" + jobs, "-l", "nodes=n1:ppn=1");
    long serverPid = server.pid();
    long momPid = moms.get("n1").pid();
    double serverCpu = CpuTime.millis(serverPid);
    double momCpu = CpuTime.millis(momPid);
    long begin = System.nanoTime();
    cli("pbsnodes", "-c", "n1");
    awaitSucceeded(array, jobs);
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
    Path log = server.home.resolve("mom-n2.log");
    long from = Files.size(log);
    String array = submit("true\n", "-t", "1-" + jobs, "-l", "nodes=n2:ppn=1+n3:ppn=1");
    awaitSucceeded(array, jobs);
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
    qmgr("set server cgroup_enable = True");
    Files.writeString(
        work.resolve("trivial.c"),
        "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0;"
            + " }\n");
    List<String> compile = new ArrayList<>(List.of("mpicc", "-o", "trivial", "trivial.c"));
    if (user != null) {
      compile.addAll(0, List.of("runuser", "-u", user, "--"));
    }
    boolean mpi =
        new ProcessBuilder(compile)
                .directory(work.toFile())
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
        submit(
            script,
            "-l",
            "nodes=n1:ppn=1+n2:ppn=1+n3:ppn=1",
            "-v",
            "OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
            "-o",
            work.resolve("tasks.out").toString());
    awaitSucceeded(id, 1);
    String out = Files.readString(work.resolve("tasks.out"));
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

  private String joinAddress() throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      Matcher m = JOIN_AT.matcher(Files.readString(server.home.resolve("serve.log")));
      if (m.find()) {
        return m.group(1);
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the server did not say where moms join");
  }

  /** Starts a mom and waits until its node is free; returns the seconds that took. */
  private double startMom(String address, String node, String cpus) throws Exception {
    long begin = System.nanoTime();
    List<String> argv =
        new ArrayList<>(
            List.of(
                root.resolve("ops/bin/berth").toString(),
                "mom",
                "--home",
                server.home.toString(),
                "--server",
                address,
                "--name",
                node,
                "--cpus",
                cpus,
                "--heartbeat",
                "1",
                "--cgroup-root",
                cgroupRoot,
                "--node-hostname"));
    argv.addAll(trust.options);
    if (user == null) {
      argv.add("--root-jobs");
    }
    moms.put(
        node,
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(
                    server.home.resolve("mom-" + node + ".log").toFile()))
            .start());
    long deadline = System.currentTimeMillis() + 60_000;
    while (!isFree(node)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("node " + node + " did not come up");
      }
      Thread.sleep(200);
    }
    return (System.nanoTime() - begin) / 1e9;
  }

  private boolean isFree(String node) throws InterruptedException, IOException {
    try {
      return cli("pbsnodes", "-a", node).contains("state = free");
    } catch (IllegalStateException notYetKnown) {
      return false;
    }
  }

  private String submit(String script, String... options) throws Exception {
    Path file = work.resolve("job-" + System.nanoTime() + ".pbs");
    Files.writeString(file, script);
    List<String> argv = new ArrayList<>(List.of("qsub", "-j", "oe"));
    argv.addAll(List.of(options));
    argv.add(file.toString());
    if (user == null) {
      return cli(argv.toArray(String[]::new)).trim();
    }
    argv.set(0, root.resolve("ops/bin/qsub").toString());
    argv.addAll(0, List.of("runuser", "-u", user, "--", "env", "BERTH_SERVER=" + server.socket));
    Process p = new ProcessBuilder(argv).directory(work.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("qsub as " + user + " failed: " + out);
    }
    return out.trim();
  }

  private void qmgr(String command) throws Exception {
    cli("qmgr", "-c", command);
  }

  private String cli(String... argv) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(argv));
    command.set(0, root.resolve("ops/bin").resolve(argv[0]).toString());
    ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile());
    pb.environment().putAll(Map.of("BERTH_SERVER", server.socket.toString()));
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
    }
    return out;
  }

  /**
   * Waits until {@code count} jobs of {@code id} (an array's subjobs, or the job) completed, and
   * checks that each exited with status 0.
   */
  private void awaitSucceeded(String id, int count) throws Exception {
    String prefix = id.contains("[]") ? id.substring(0, id.indexOf('[')) + "[" : id;
    long deadline = System.currentTimeMillis() + 600_000;
    while (System.currentTimeMillis() < deadline) {
      try (BerthClient c = BerthClient.connect(server.socket)) {
        List<Job> jobs =
            c.call(
                    Request.newBuilder()
                        .setStatJobs(StatJobs.newBuilder().addJobIds(id).setIncludeSubjobs(true)))
                .getJobs()
                .getJobsList();
        List<Job> done =
            jobs.stream()
                .filter(j -> j.getId().startsWith(prefix) && !j.getId().contains("[]"))
                .filter(j -> j.getState() == JobState.COMPLETED)
                .toList();
        if (done.size() >= count) {
          checkSucceeded(done);
          return;
        }
      }
      Thread.sleep(50); // the server's CPU per job counts these polls too: not too many
    }
    throw new IllegalStateException(id + " did not complete");
  }

  private void checkSucceeded(List<Job> jobs) {
    List<String> failed =
        jobs.stream()
            .filter(j -> !j.hasExitStatus() || j.getExitStatus() != 0)
            .map(
                j ->
                    j.getId()
                        + " (exit status "
                        + (j.hasExitStatus() ? j.getExitStatus() : "none")
                        + ", "
                        + j.getComment()
                        + ")")
            .toList();
    if (!failed.isEmpty()) {
      throw new IllegalStateException(
          failed.size()
              + " of "
              + jobs.size()
              + " jobs failed, e.g. "
              + failed.subList(0, Math.min(3, failed.size())));
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
    for (Process mom : moms.values()) {
      mom.destroy();
      mom.waitFor(30, TimeUnit.SECONDS);
    }
    server.close();
    for (String hierarchy : new String[] {"cpuset", "cpuacct", "freezer", "memory"}) {
      removeEmptyTree(Path.of("/sys/fs/cgroup", hierarchy));
    }
  }

  /** The moms remove their own roots when they stop; whatever level of ours is left goes. */
  private void removeEmptyTree(Path hierarchy) throws IOException {
    if (!Files.isDirectory(hierarchy)) {
      return;
    }
    try (var found = Files.find(hierarchy, 4, (p, a) -> p.endsWith(cgroupRoot))) {
      for (Path dir : found.toList()) {
        try (var levels = Files.walk(dir)) {
          levels
              .filter(Files::isDirectory)
              .sorted(java.util.Comparator.reverseOrder())
              .forEach(p -> p.toFile().delete());
        }
      }
    }
  }
}
