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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server process and {@code berth mom} processes on this host for the benchmarks of jobs, each
 * mom with its own node name, CPUs and cgroup root; jobs are submitted as berth-alice when that
 * user exists (ops/test makes it), since root's login profile on a developer machine can take
 * longer than the job itself. Every job waited for must end with exit status 0: a benchmark of jobs
 * that failed measures nothing.
 */
final class MomCluster implements AutoCloseable {
  private static final Pattern JOIN_AT = Pattern.compile("moms join at (\\S+)");
  private static final String JOB_USER = "berth-alice";

  private final Path root;
  private final Trust trust;
  private final BenchServer server;
  private final Path work;
  private final String cgroupRoot;
  private final Map<String, Process> moms = new LinkedHashMap<>();
  private final String user;
  private String address;

  MomCluster(Path root, Trust trust) throws IOException, InterruptedException {
    this.root = root;
    this.trust = trust;
    this.server = new BenchServer(root, trust);
    this.work = Files.createTempDirectory(server.home, "work");
    this.cgroupRoot = "berth-bench-" + server.home.getFileName();
    this.user = run(List.of("id", "-u", JOB_USER)) == 0 ? JOB_USER : null;
    if (user != null) {
      run(List.of("chown", user, work.toString()));
      run(List.of("chmod", "755", server.home.toString()));
    }
  }

  /** Starts the server; moms come with {@link #startMom}. */
  void start() throws Exception {
    server.start();
    address = joinAddress();
    qmgr("set server node_check_rate = 4");
    if (user == null) {
      qmgr("set server acl_roots = root"); // root's jobs are refused unless allowed twice
    }
  }

  /** Who the jobs run as, for the report. */
  String jobUser() {
    return user != null ? user : "root (create berth-alice to leave root's login profile out)";
  }

  /** The user jobs run as, or null for root. */
  String user() {
    return user;
  }

  /** The checkout whose ops/bin runs the daemons and commands. */
  Path root() {
    return root;
  }

  Path work() {
    return work;
  }

  Path socket() {
    return server.socket;
  }

  long serverPid() {
    return server.pid();
  }

  long momPid(String node) {
    return moms.get(node).pid();
  }

  Path momLog(String node) {
    return server.home.resolve("mom-" + node + ".log");
  }

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
  double startMom(String node, String cpus) throws Exception {
    return startMom(node, cpus, 1);
  }

  /** A mom with a status report (and limit poll) every {@code heartbeat} seconds. */
  double startMom(String node, String cpus, int heartbeat) throws Exception {
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
                Integer.toString(heartbeat),
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

  /**
   * Runs {@code script} with {@code sh -c} as the job user in the work directory, with Berth's
   * commands first on PATH, BERTH_SERVER set and {@code env} added; returns what it printed.
   */
  String shell(String script, Map<String, String> env) throws Exception {
    List<String> argv = new ArrayList<>();
    if (user != null) {
      argv.addAll(List.of("runuser", "-u", user, "--"));
    }
    argv.addAll(
        List.of(
            "env",
            "PATH=" + root.resolve("ops/bin") + ":/usr/bin:/bin",
            "BERTH_SERVER=" + server.socket));
    env.forEach((k, v) -> argv.add(k + "=" + v));
    argv.addAll(List.of("sh", "-c", script));
    Process p =
        new ProcessBuilder(argv)
            .directory(work.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("as " + jobUser() + ": " + script + " failed: " + out);
    }
    return out;
  }

  String submit(String script, String... options) throws Exception {
    return submitAs(user, work, script, options);
  }

  /**
   * Submits {@code script} as {@code asUser} (root when null) from {@code dir}, which that user
   * must be able to read.
   */
  String submitAs(String asUser, Path dir, String script, String... options) throws Exception {
    Path file = dir.resolve("job-" + System.nanoTime() + ".pbs");
    Files.writeString(file, script);
    List<String> argv = new ArrayList<>(List.of("qsub", "-j", "oe"));
    argv.addAll(List.of(options));
    argv.add(file.toString());
    if (asUser == null) {
      return cli(argv.toArray(String[]::new)).trim();
    }
    argv.set(0, root.resolve("ops/bin/qsub").toString());
    argv.addAll(0, List.of("runuser", "-u", asUser, "--", "env", "BERTH_SERVER=" + server.socket));
    Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("qsub as " + asUser + " failed: " + out);
    }
    return out.trim();
  }

  /** The job as the server has it now. */
  Job job(String id) throws Exception {
    try (BerthClient c = BerthClient.connect(server.socket)) {
      return c.call(Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(id)))
          .getJobs()
          .getJobs(0);
    }
  }

  /** The moms' job directory base (TMPDIR-BASE), with a directory per node. */
  Path jobTmp() throws IOException {
    return Path.of(Files.readString(server.home.resolve("jobtmp")).strip());
  }

  void qmgr(String command) throws Exception {
    cli("qmgr", "-c", command);
  }

  String cli(String... argv) throws IOException, InterruptedException {
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
  void awaitSucceeded(String id, int count) throws Exception {
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

  @Override
  public void close() throws Exception {
    for (Process mom : moms.values()) {
      mom.destroy();
      mom.waitFor(30, TimeUnit.SECONDS);
    }
    // the moms' job directory base outside the home, with their container caches
    Path jobTmp = server.home.resolve("jobtmp");
    if (Files.exists(jobTmp)) {
      BenchServer.deleteTree(Path.of(Files.readString(jobTmp).strip()));
    }
    server.close();
    for (String hierarchy :
        new String[] {"cpuset", "cpuacct", "freezer", "memory", "devices", "blkio"}) {
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
