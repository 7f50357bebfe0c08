package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.client.BerthClient;
import dev.berth.core.Hosts;
import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.Request;
import dev.berth.proto.StatJobs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Two server processes on one Kafka journal topic (the first active, the second standing by) and
 * two mom processes given both servers' addresses, each mom with one CPU and a cgroup root of this
 * cluster's own. The commands get both sockets in {@code BERTH_SERVER}, as a site would set it.
 */
final class FailoverCluster implements AutoCloseable {
  final Path dir;
  final Path work;
  final String cgroupRoot;
  final String journal;
  final ServerProcess first;
  final ServerProcess second;
  private final Map<String, Process> moms = new LinkedHashMap<>();
  private final List<String> addresses = new ArrayList<>();

  /** {@code authority}: the cluster's CA (the secured broker's), given to every home. */
  private FailoverCluster(Path dir, String journal, Path authority) throws IOException {
    this.dir = dir;
    this.journal = journal;
    TestAuthority.give(authority, Files.createDirectories(dir.resolve("first")));
    this.work = Files.createDirectories(dir.resolve("work"));
    this.cgroupRoot = "berth-it-" + dir.getFileName();
    for (int i = 0; i < 2; i++) {
      addresses.add("127.0.0.1:" + Hosts.freeLoopbackPort());
    }
    this.first = server("first", 0);
    this.second = server("second", 1);
    TestAuthority.share(first.home, Files.createDirectories(dir.resolve("moms")));
  }

  /**
   * A server as the admin guide sets them up: the same journal and the same --join list of every
   * server (itself included) on each, so a restart with the same command line joins the cluster.
   */
  private ServerProcess server(String name, int index) throws IOException {
    Path home = Files.createDirectories(dir.resolve(name));
    TestAuthority.share(dir.resolve("first"), home); // one CA for the whole cluster
    return new ServerProcess(
        home,
        "--journal",
        journal,
        "--port",
        addresses.get(index).substring(addresses.get(index).indexOf(':') + 1),
        "--join",
        String.join(",", addresses));
  }

  /**
   * Starts both servers (the first founds the cluster and becomes active) and both moms on the
   * topic of {@code journal}.
   */
  static FailoverCluster start(Path dir, String journal, Path authority) throws IOException {
    FailoverCluster c = new FailoverCluster(dir, journal, authority);
    if (!c.first.start()) {
      fail("the first server did not start: " + c.first.log());
    }
    if (!c.second.startStandby()) {
      fail("the second server did not stand by: " + c.second.log());
    }
    TestCluster.allowRootJobs(c.first.socket);
    c.startMom("m1", "0");
    c.startMom("m2", "1");
    return c;
  }

  private void startMom(String node, String cpus) throws IOException {
    moms.put(
        node,
        MomProcesses.launch(
            Files.createDirectories(dir.resolve("moms")),
            String.join(",", addresses),
            node,
            cpus,
            cgroupRoot,
            dir.resolve("mom-" + node + ".log")));
    MultiNodeCluster.awaitTrue(
        () -> cli("pbsnodes", "-a", node).out().contains("state = free\n"),
        Duration.ofSeconds(60),
        () -> cli("pbsnodes", "-a").toString());
  }

  /**
   * What the commands see: both servers' sockets, the active one's first as a site would not know.
   */
  Map<String, String> env() {
    Map<String, String> env = TestCluster.clientEnv(first.socket);
    env.put("BERTH_SERVER", first.socket + "," + second.socket);
    return env;
  }

  TestCluster.Result cli(String command, String... args) {
    return TestCluster.runCli(env(), work, "", command, args);
  }

  /** Writes {@code script} to a file and submits it with {@code args}; fails the test on error. */
  String submit(String script, String... args) throws IOException {
    TestCluster.Result r = qsub(script(script), args);
    assertEquals(0, r.exit(), r.toString());
    return r.out().strip();
  }

  Path script(String body) throws IOException {
    Path file = work.resolve("job-" + System.nanoTime() + ".sh");
    Files.writeString(file, body);
    return file;
  }

  TestCluster.Result qsub(Path script, String... args) {
    List<String> argv = new ArrayList<>(List.of(args));
    argv.add(script.toString());
    return cli("qsub", argv.toArray(String[]::new));
  }

  /** Every job the active server knows, by id. */
  Map<String, Job> jobs() {
    try (BerthClient client =
        BerthClient.connect(
            List.of(first.socket, second.socket), Duration.ofSeconds(60), Duration.ofSeconds(60))) {
      Map<String, Job> all = new LinkedHashMap<>();
      for (Job j :
          client
              .call(Request.newBuilder().setStatJobs(StatJobs.getDefaultInstance()))
              .getJobs()
              .getJobsList()) {
        if (all.put(j.getId(), j) != null) {
          fail("the server lists job " + j.getId() + " twice");
        }
      }
      return all;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  Job awaitJob(String id, java.util.function.Predicate<Job> condition, Duration timeout) {
    Job[] last = {null};
    MultiNodeCluster.awaitTrue(
        () -> {
          last[0] = jobs().get(id);
          return last[0] != null && condition.test(last[0]);
        },
        timeout,
        () -> "job " + id + ": " + last[0]);
    return last[0];
  }

  @Override
  public void close() throws Exception {
    Processes.stop(moms.values());
    first.close();
    second.close();
    CgroupTrees.removeTree(cgroupRoot);
    JobFiles.removeTree(new BerthHome(dir.resolve("moms")).jobTmp());
  }
}
