package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.daemon.BerthHome;
import dev.berth.mom.job.PhaseWalk;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A cluster of real processes on this host: {@code berth serve} (no local moms) and one {@code
 * berth mom} process per node, each with its own CPUs and cgroup root below a root of this
 * cluster's own, so a test can SIGKILL a node's mom.
 */
final class MultiNodeCluster implements AutoCloseable {
  private static final Pattern JOIN_AT = Pattern.compile("moms join at (\\S+)");

  final Path home;
  final Path socket;
  final String cgroupRoot;
  final ServerProcess server;
  private final Map<String, Process> moms = new LinkedHashMap<>();
  private final Map<String, String> momEnvironment = new LinkedHashMap<>();
  private final List<String> submitted = new ArrayList<>();
  private String address;

  private MultiNodeCluster(Path home, String... serverOptions) throws IOException {
    this.home = home;
    this.socket = home.resolve("server.sock");
    this.cgroupRoot = "berth-it-" + home.getFileName();
    this.server = new ServerProcess(home, serverOptions);
  }

  /** The server, with more {@code berth serve} options if any, and no moms yet. */
  static MultiNodeCluster start(String... serverOptions) throws IOException {
    return start(List.of(), serverOptions);
  }

  /** The server with JVM options ({@code -Dname=value}) and {@code berth serve} options. */
  static MultiNodeCluster start(List<String> javaOptions, String... serverOptions)
      throws IOException {
    Path home = Files.createTempDirectory(Path.of("/tmp"), "berth-multi-");
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    MultiNodeCluster c = new MultiNodeCluster(home, serverOptions);
    c.server.javaOptions(javaOptions.toArray(String[]::new));
    if (!c.server.start()) {
      fail("the server did not start: " + c.server.log());
    }
    Matcher m = JOIN_AT.matcher(c.server.log());
    if (!m.find()) {
      fail("the server did not say where moms join: " + c.server.log());
    }
    c.address = m.group(1);
    c.qmgr("set server node_check_rate = 4");
    TestCluster.allowRootJobs(c.socket);
    return c;
  }

  /**
   * Three moms with a host name each (a UTS namespace per node): a with CPUs 0-1, b with 0, c with
   * 1; cgroups on. For jobs whose processes span nodes (tasks, MPI).
   */
  static MultiNodeCluster threeHosts() throws IOException {
    MultiNodeCluster c = start();
    c.startMom("a", "0-1", "--node-hostname");
    c.startMom("b", "0", "--node-hostname");
    c.startMom("c", "1", "--node-hostname");
    c.qmgr("set server cgroup_enable = True");
    return c;
  }

  /** A scratch directory in /tmp that {@code user} owns, for their job files and output. */
  static Path workFor(String user, String prefix) throws IOException {
    Path work = Files.createTempDirectory(Path.of("/tmp"), prefix);
    TestCluster.exec(work, List.of("chown", user, work.toString()));
    return work;
  }

  /** Runs {@code argv} as {@code user} in {@code dir} and fails the test if it fails. */
  static void runAs(String user, Path dir, String... argv) {
    List<String> command = new ArrayList<>(List.of("runuser", "-u", user, "--"));
    command.addAll(List.of(argv));
    TestCluster.Result r = TestCluster.exec(dir, command);
    assertEquals(0, r.exit(), String.join(" ", argv) + ": " + r);
  }

  /** The {@code key=value} fields of a line a test job printed. */
  static Map<String, String> fields(String line) {
    Map<String, String> f = new java.util.TreeMap<>();
    for (String part : line.split(" ")) {
      int eq = part.indexOf('=');
      f.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return f;
  }

  /**
   * Starts the mom of {@code node} offering {@code cpus} (with more {@code berth mom} options, if
   * any) and waits until the node is free.
   */
  void startMom(String node, String cpus, String... options) throws IOException {
    launchMom(node, cpus, options);
    awaitNode(node, "free");
  }

  /** Starts the mom of {@code node} without waiting for it. */
  void launchMom(String node, String cpus, String... options) throws IOException {
    moms.put(
        node,
        MomProcesses.launch(
            home,
            address,
            node,
            cpus,
            cgroupRoot,
            home.resolve("mom-" + node + ".log"),
            momEnvironment,
            options));
  }

  /** Moms started from now on get {@code name=value} in their environment (BERTH_HEAP, say). */
  void momEnvironment(String name, String value) {
    momEnvironment.put(name, value);
  }

  /** The process id of the JVM of {@code node}'s mom (ops/bin/berth execs java). */
  long momPid(String node) {
    return moms.get(node).pid();
  }

  void awaitNode(String node, String state) {
    long deadline = System.currentTimeMillis() + TimeScale.of(Duration.ofSeconds(60)).toMillis();
    String last = "";
    while (System.currentTimeMillis() < deadline) {
      last = cli("pbsnodes", "-a", node).out();
      if (last.contains("state = " + state + "\n")) {
        return;
      }
      TestCluster.sleep(200);
    }
    fail("node " + node + " did not become " + state + ": " + last + "\n" + momLog(node));
  }

  /** Waits for the mom of {@code node} to exit by itself (momctl -s); returns its exit status. */
  int awaitMomExit(String node, Duration timeout) throws InterruptedException {
    Process p = moms.get(node);
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      fail("the mom of " + node + " did not exit: " + momLog(node));
    }
    moms.remove(node);
    return p.exitValue();
  }

  /** Whether the mom process of {@code node} this cluster started still runs. */
  boolean momAlive(String node) {
    Process p = moms.get(node);
    return p != null && p.isAlive();
  }

  void killMom(String node) throws InterruptedException {
    Process p = moms.remove(node);
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  /** Stops the mom of {@code node} as its service would (SIGTERM); returns its exit status. */
  int stopMom(String node) throws InterruptedException {
    moms.get(node).destroy();
    return awaitMomExit(node, TimeScale.of(Duration.ofSeconds(60)));
  }

  String momLog(String node) {
    try {
      return Files.readString(home.resolve("mom-" + node + ".log"));
    } catch (IOException e) {
      return "";
    }
  }

  /** Where moms join: the server's cluster address, {@code host:port}. */
  String address() {
    return address;
  }

  TestCluster.Result cli(String command, String... args) {
    return TestCluster.runCli(TestCluster.clientEnv(socket), home, "", command, args);
  }

  /**
   * {@code command} from ops/bin as {@code user} in {@code cwd}, on this cluster, with no terminal
   * and empty standard input.
   */
  TestCluster.Result commandAs(String user, Path cwd, String command, String... args) {
    return commandAs(user, cwd, new byte[0], command, args);
  }

  /** The same, with {@code stdin} as its standard input. */
  TestCluster.Result commandAs(
      String user, Path cwd, byte[] stdin, String command, String... args) {
    return TestCluster.runAs(socket, user, cwd, stdin, command, args);
  }

  void qmgr(String command) {
    TestCluster.Result r = cli("qmgr", "-c", command);
    assertEquals(0, r.exit(), r.toString());
  }

  String submit(Path cwd, String script, String... args) throws IOException {
    Path file = cwd.resolve("job-" + System.nanoTime() + ".sh");
    Files.writeString(file, script);
    List<String> argv = new ArrayList<>(List.of(args));
    argv.add(file.toString());
    TestCluster.Result r =
        TestCluster.runCli(
            TestCluster.clientEnv(socket), cwd, "", "qsub", argv.toArray(String[]::new));
    if (r.exit() != 0) {
      fail("qsub failed: " + r);
    }
    submitted.add(r.out().trim());
    return r.out().trim();
  }

  /** qsub run by {@code user} as a process of theirs, in {@code cwd} (which they must reach). */
  String submitAs(String user, Path cwd, String script, String... args) throws IOException {
    TestCluster.Result r = qsubAs(user, cwd, script, args);
    if (r.exit() != 0) {
      fail("qsub as " + user + " failed: " + r);
    }
    submitted.add(r.out().trim());
    return r.out().trim();
  }

  /** qsub of {@code script} run by {@code user} in {@code cwd}, whatever it answers. */
  TestCluster.Result qsubAs(String user, Path cwd, String script, String... args)
      throws IOException {
    Path file = cwd.resolve("job-" + System.nanoTime() + ".sh");
    Files.writeString(file, script);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    List<String> argv =
        new ArrayList<>(List.of("runuser", "-u", user, "--", "env", "BERTH_SERVER=" + socket));
    argv.add(TestCluster.ROOT.resolve("ops/bin/qsub").toString());
    argv.addAll(List.of(args));
    argv.add(file.toString());
    return TestCluster.exec(cwd, argv);
  }

  /**
   * sbatch of {@code script} (a {@code #!} script with its {@code #SBATCH} lines) run by {@code
   * user} in {@code cwd}; returns the job's number sbatch printed.
   */
  String sbatchAs(String user, Path cwd, String script, String... args) throws IOException {
    Path file = cwd.resolve("job-" + System.nanoTime() + ".sh");
    Files.writeString(file, script);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    List<String> argv =
        new ArrayList<>(List.of("runuser", "-u", user, "--", "env", "BERTH_SERVER=" + socket));
    argv.add(TestCluster.ROOT.resolve("ops/bin/sbatch").toString());
    argv.add("--parsable");
    argv.addAll(List.of(args));
    argv.add(file.toString());
    TestCluster.Result r = TestCluster.exec(cwd, argv);
    if (r.exit() != 0) {
      fail("sbatch as " + user + " failed: " + r);
    }
    String id = job(r.out().trim()).getId();
    submitted.add(id);
    return id;
  }

  /** What the job wrote to its output file so far ("" before it exists). */
  static String output(Job job) {
    try {
      Path out = Path.of(job.getOutputPath().substring(job.getOutputPath().indexOf(':') + 1));
      return Files.exists(out) ? Files.readString(out) : "";
    } catch (IOException e) {
      return "";
    }
  }

  static void awaitTrue(java.util.function.BooleanSupplier condition, Duration timeout) {
    awaitTrue(condition, timeout, () -> "");
  }

  /** Waits for {@code condition}; a timeout reports {@code state} as it is then. */
  static void awaitTrue(
      java.util.function.BooleanSupplier condition,
      Duration timeout,
      java.util.function.Supplier<String> state) {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("not within " + timeout + ": " + state.get());
      }
      TestCluster.sleep(100);
    }
  }

  /**
   * Deletes the jobs this cluster submitted that have not completed and waits until they have, so
   * that a failed test does not leave its job holding the nodes of the next.
   */
  void deleteUnfinished() {
    for (String id : submitted) {
      if (jobProto(id).getState() != dev.berth.proto.JobState.COMPLETED) {
        cli("qdel", id);
        await(
            id,
            j -> j.getState() == dev.berth.proto.JobState.COMPLETED,
            TimeScale.of(Duration.ofSeconds(30)));
      }
    }
    submitted.clear();
  }

  Job job(String id) {
    TestCluster.Result r = cli("qstat", "-f", "-F", "json", id);
    assertEquals(0, r.exit(), r.toString());
    return jobProto(id);
  }

  private Job jobProto(String id) {
    try (var client = dev.berth.client.BerthClient.connect(socket)) {
      var response =
          client.call(
              dev.berth.proto.Request.newBuilder()
                  .setStatJobs(dev.berth.proto.StatJobs.newBuilder().addJobIds(id)));
      return response.getJobs().getJobs(0);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  Job await(String id, Predicate<Job> condition, Duration timeout) {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    Job last = null;
    while (System.currentTimeMillis() < deadline) {
      last = jobProto(id);
      if (condition.test(last)) {
        return last;
      }
      TestCluster.sleep(100);
    }
    return fail("job " + id + " did not reach the expected state in " + timeout + ": " + last);
  }

  /** Whether the job still has a cgroup directory on any node (true when it cannot tell). */
  boolean hasCgroups(String jobId) {
    try {
      return cpusetJobCgroups().values().stream().anyMatch(jobs -> jobs.contains(jobId));
    } catch (IOException e) {
      return true;
    }
  }

  /** Whether the job has a cgroup directory on {@code node} (true when it cannot tell). */
  boolean hasCgroupOn(String node, String jobId) {
    try {
      return cpusetJobCgroups().getOrDefault(node, List.of()).contains(jobId);
    } catch (IOException e) {
      return true;
    }
  }

  /** This cluster's job cgroup directories in the cpuset hierarchy: node -> job ids. */
  Map<String, List<String>> cpusetJobCgroups() throws IOException {
    Map<String, List<String>> result = new LinkedHashMap<>();
    Path root = Path.of("/sys/fs/cgroup/cpuset").resolve(cgroupRoot);
    if (!Files.isDirectory(root)) {
      return result;
    }
    try (Stream<Path> nodes = Files.list(root)) {
      for (Path node : nodes.filter(Files::isDirectory).toList()) {
        try (Stream<Path> jobs = Files.list(node)) {
          result.put(
              node.getFileName().toString(),
              jobs.filter(Files::isDirectory)
                  .map(p -> p.getFileName().toString())
                  .sorted()
                  .toList());
        }
      }
    }
    return result;
  }

  @Override
  public void close() throws Exception {
    Processes.stop(moms.values());
    server.close();
    List<String> offPhase = stepsOffTheirTables();
    CgroupTrees.removeTree(cgroupRoot);
    JobFiles.removeTree(new BerthHome(home).jobTmp());
    JobFiles.removeTree(home);
    if (!offPhase.isEmpty()) {
      throw new AssertionError("jobs on the moms left their phase tables:\n" + offPhase);
    }
  }

  /**
   * What the moms logged of steps their jobs took that docs/mom-job-states.md does not have (each
   * job actor checks its steps; a daemon logs what it finds and goes on), for every class that uses
   * this cluster to hold the moms to the tables.
   */
  private List<String> stepsOffTheirTables() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> logs = Files.list(home)) {
      for (Path log : logs.filter(p -> p.getFileName().toString().startsWith("mom-")).toList()) {
        Files.readAllLines(log).stream()
            .filter(l -> l.contains(PhaseWalk.OFF_TABLE))
            .forEach(found::add);
      }
    }
    return found;
  }
}
