package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A Berth site on separate hosts ({@link VirtualHosts}): a Kafka broker host, two server hosts
 * (active and standby on the broker's journal, both taking submit hosts' relays), login hosts with
 * relays, and compute hosts with a mom each. Every daemon is a real process on its host, with a
 * home of its own; the homes share the site's CA (a site would copy each host its credential).
 */
final class Site implements AutoCloseable {
  static final int CLUSTER_PORT = 2552;
  static final int RELAY_PORT = 15001;
  static final int KAFKA_PORT = 9092;
  static final String SERVER_NAME = "site";

  /** A daemon on a host: its process and its log. */
  record Daemon(VirtualHosts.Host host, List<String> argv, Process process, Path logFile) {
    String log() {
      try {
        return Files.readString(logFile);
      } catch (IOException e) {
        return "(no log: " + e.getMessage() + ")";
      }
    }
  }

  final Path dir;
  final VirtualHosts net;
  final String cgroupRoot;
  private final Map<String, Daemon> daemons = new LinkedHashMap<>();
  private final List<VirtualHosts.Host> servers = new ArrayList<>();
  private VirtualHosts.Host kafka;

  private Site(Path dir, VirtualHosts net) {
    this.dir = dir;
    this.net = net;
    this.cgroupRoot = "berth-it-" + dir.getFileName();
  }

  /** An empty site: the hosts come with the start methods. */
  static Site create() throws IOException {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "berth-site-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    TestAuthority.ensure(dir.resolve("ca-home"));
    return new Site(dir, VirtualHosts.create(dir));
  }

  /** A home for the daemon {@code name}, with the site's CA. */
  private Path home(String name) throws IOException {
    Path home = Files.createDirectories(dir.resolve("home-" + name));
    TestAuthority.share(dir.resolve("ca-home"), home);
    return home;
  }

  /** The broker of the servers' journal, on a host of its own. */
  void startKafka() throws IOException {
    kafka = net.add("kafka1");
    Path home = home("kafka1");
    start(
        kafka,
        "kafka1",
        List.of(
            TestCluster.ROOT.resolve("ops/bin/berth").toString(),
            "kafka",
            "run",
            "--home",
            home.toString(),
            "--host",
            kafka.address(),
            "--port",
            Integer.toString(KAFKA_PORT)),
        () -> Files.exists(home.resolve("kafka/ready")));
  }

  /**
   * The server hosts; the first founds the cluster and is active, the others stand by (on the
   * broker's journal, which a site with standbys must start first).
   */
  void startServers(String... hosts) throws IOException {
    for (String name : hosts) {
      servers.add(net.add(name));
    }
    for (VirtualHosts.Host h : servers) {
      startServer(h);
    }
  }

  /**
   * Starts the server on {@code h}: on the broker's journal, with the others, if the site has one;
   * else alone on its home's.
   */
  void startServer(VirtualHosts.Host h) throws IOException {
    Path home = home(h.name());
    boolean first = h == servers.get(0) && !daemons.containsKey(h.name());
    List<String> options =
        new ArrayList<>(
            List.of(
                "--home",
                home.toString(),
                "--socket",
                socket(h).toString(),
                "--nodes",
                "0",
                "--server-name",
                SERVER_NAME,
                "--host",
                h.address(),
                "--port",
                Integer.toString(CLUSTER_PORT),
                "--relay-port",
                Integer.toString(RELAY_PORT)));
    if (kafka != null) {
      options.addAll(
          List.of(
              "--journal",
              "kafka://" + kafka.address() + ":" + KAFKA_PORT + "/berth-site",
              "--join",
              joinList(CLUSTER_PORT)));
    }
    Daemon d = startUnit(h, h.name(), "berth-server", options, null);
    awaitLog(d, first ? "berth: serving" : "standing by with the state");
  }

  /**
   * The server {@code name}'s client socket (on the shared file system, for the test's own calls).
   */
  Path socket(VirtualHosts.Host server) {
    return dir.resolve("home-" + server.name()).resolve("server.sock");
  }

  List<Path> serverSockets() {
    return servers.stream().map(this::socket).toList();
  }

  VirtualHosts.Host server(int i) {
    return servers.get(i);
  }

  String joinList(int port) {
    return String.join(",", servers.stream().map(s -> s.address() + ":" + port).toList());
  }

  /**
   * A login host with its relay on the system socket, /run/berth/server.sock, where the commands
   * look by default; the host has its own mounts, so that socket and {@code privateDirs} (each
   * given a tmpfs of its own there) exist on that host only.
   */
  VirtualHosts.Host startLogin(String name, Path... privateDirs) throws IOException {
    VirtualHosts.Host h = net.add(name);
    net.mountPrivate(h, Path.of("/run/berth"));
    for (Path d : privateDirs) {
      Files.createDirectories(d);
      net.mountPrivate(h, d);
    }
    Path home = home(name);
    Daemon d =
        startUnit(
            h,
            name,
            "berth-relay",
            List.of(
                "--home",
                home.toString(),
                "--socket",
                "/run/berth/server.sock",
                "--server",
                joinList(RELAY_PORT)),
            null);
    awaitLog(d, "berth: relay for submit host " + name);
    return h;
  }

  /**
   * A compute host with a mom offering {@code cpus} (and any more {@code berth mom} options); waits
   * until the server lists it free.
   */
  VirtualHosts.Host startCompute(String name, String cpus, String... options) throws IOException {
    VirtualHosts.Host h = net.add(name);
    Path home = home(h.name());
    List<String> argv =
        new ArrayList<>(
            List.of(
                "--home",
                home.toString(),
                "--server",
                joinList(CLUSTER_PORT),
                "--host",
                h.address(),
                "--port",
                Integer.toString(CLUSTER_PORT),
                "--cpus",
                cpus,
                "--heartbeat",
                "1",
                "--cgroup-root",
                cgroupRoot));
    argv.addAll(List.of(options));
    Daemon mom = startUnit(h, h.name(), "berth-mom", argv, null);
    awaitTrue(
        mom,
        () -> rootCli("pbsnodes", "-a", h.name()).out().contains("state = free\n"),
        "show as free");
    return h;
  }

  /**
   * Starts the daemon {@code name} on {@code host} as the systemd unit {@code unit} starts it, with
   * {@code options} in its configuration file; waits for {@code ready} if given.
   */
  private Daemon startUnit(
      VirtualHosts.Host host, String name, String unit, List<String> options, BooleanSupplier ready)
      throws IOException {
    return start(host, name, Units.command(unit, dir.resolve(name + ".conf"), options), ready);
  }

  /**
   * Starts {@code argv} on {@code host} as the daemon {@code name}, logging to a file of its own;
   * waits for {@code ready} if given.
   */
  private Daemon start(
      VirtualHosts.Host host, String name, List<String> argv, BooleanSupplier ready)
      throws IOException {
    Path log = dir.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(host.command(argv))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("BERTH_HEAP", "512m");
    builder.environment().put("BERTH_CLIENT_LIMITS", ServerProcess.SMALL_HEAP_LIMITS);
    // RocksDB unpacks its native library into the temp directory; a SIGKILLed daemon cannot
    // delete it, so it goes where this test removes it.
    builder.environment().put("BERTH_JAVA_OPTS", "-Djava.io.tmpdir=" + dir);
    Daemon d = new Daemon(host, argv, builder.start(), log);
    daemons.put(name, d);
    if (ready != null) {
      awaitTrue(d, ready, "start");
    }
    return d;
  }

  private void awaitLog(Daemon d, String line) {
    awaitTrue(d, () -> d.log().contains(line), "log '" + line + "'");
  }

  private static void awaitTrue(Daemon d, BooleanSupplier ready, String what) {
    long deadline = System.currentTimeMillis() + 90_000;
    while (!ready.getAsBoolean()) {
      if (!d.process().isAlive()) {
        fail(d.host().name() + " exited instead of: " + what + "\n" + d.log());
      }
      if (System.currentTimeMillis() > deadline) {
        fail(d.host().name() + " did not " + what + " within 90 s:\n" + d.log());
      }
      TestCluster.sleep(100);
    }
  }

  /** The host the daemon {@code name} runs on. */
  VirtualHosts.Host host(String name) {
    return daemons.get(name).host();
  }

  Daemon daemon(String name) {
    return daemons.get(name);
  }

  /** SIGKILL to the daemon {@code name}. */
  void kill(String name) throws InterruptedException {
    Process p = daemons.get(name).process();
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  /**
   * SIGKILL to the daemon {@code name}, then the same command line again, as systemd's
   * Restart=always does; returns once its log shows {@code ready} again.
   */
  void restart(String name, String ready) throws IOException, InterruptedException {
    Daemon old = daemons.get(name);
    kill(name);
    int before = old.log().length();
    Daemon d = start(old.host(), name, old.argv(), null);
    awaitTrue(d, () -> d.log().substring(before).contains(ready), "log '" + ready + "' again");
  }

  /**
   * What job {@code id} has left in the compute hosts' job directories: its TMPDIR, its output
   * spool, its undelivered output.
   */
  List<Path> jobFiles(String id) {
    List<Path> left = new ArrayList<>();
    for (Daemon d : daemons.values()) {
      Path record = dir.resolve("home-" + d.host().name()).resolve("jobtmp");
      if (!Files.exists(record)) {
        continue;
      }
      try {
        Path base = Path.of(Files.readString(record).strip()).resolve(d.host().name());
        for (Path p :
            List.of(
                base.resolve(id),
                base.resolve(id + ".spool"),
                base.resolve("undelivered").resolve(id))) {
          if (Files.exists(p)) {
            left.add(p);
          }
        }
      } catch (IOException e) {
        left.add(record);
      }
    }
    return left;
  }

  /** A command of the site's root on a server host's socket, run in this JVM. */
  TestCluster.Result rootCli(String command, String... args) {
    Map<String, String> env = TestCluster.clientEnv(socket(servers.get(0)));
    env.put(
        "BERTH_SERVER", String.join(",", serverSockets().stream().map(Path::toString).toList()));
    return TestCluster.runCli(env, dir, "", command, args);
  }

  /**
   * {@code ops/bin/COMMAND ARGS} run on {@code host} by {@code user} in {@code cwd}, with the
   * environment a login shell would give it (no BERTH_SERVER: the commands find the relay's socket
   * where they look by default).
   */
  TestCluster.Result as(
      VirtualHosts.Host host, String user, Path cwd, String command, String... args) {
    return as(host, List.of(), user, cwd, command, args);
  }

  /**
   * {@code ops/bin/COMMAND ARGS} run by {@code user} on the active server's host, where the
   * commands are given the servers' sockets, as on a server host of a site with standbys.
   */
  TestCluster.Result onServerHost(String user, Path cwd, String command, String... args) {
    String sockets = String.join(",", serverSockets().stream().map(Path::toString).toList());
    return as(servers.get(0), List.of("BERTH_SERVER=" + sockets), user, cwd, command, args);
  }

  private TestCluster.Result as(
      VirtualHosts.Host host,
      List<String> env,
      String user,
      Path cwd,
      String command,
      String... args) {
    List<String> argv = new ArrayList<>(TestUsers.loginEnv(user));
    argv.addAll(env);
    argv.addAll(
        List.of(
            "sh",
            "-c",
            "cd \"$0\" && exec \"$@\"",
            cwd.toString(),
            TestCluster.ROOT.resolve("ops/bin").resolve(command).toString()));
    argv.addAll(List.of(args));
    return TestCluster.exec(Path.of("/"), host.command(argv));
  }

  /** Like {@link #as}, but fails the test unless the command succeeds; returns its output. */
  String ok(VirtualHosts.Host host, String user, Path cwd, String command, String... args) {
    TestCluster.Result r = as(host, user, cwd, command, args);
    assertEquals(
        0, r.exit(), command + " " + String.join(" ", args) + " on " + host.name() + ": " + r);
    return r.out();
  }

  /** Every daemon's log, for a failure message. */
  String logs() {
    StringBuilder all = new StringBuilder();
    daemons.forEach((name, d) -> all.append("==== ").append(name).append('\n').append(d.log()));
    return all.toString();
  }

  @Override
  public void close() throws Exception {
    // Moms and relays first (their jobs are over by now), while the servers are there to see the
    // moms leave the cluster; then the servers; then the broker.
    List<Daemon> brokers = new ArrayList<>();
    List<Daemon> serverDaemons = new ArrayList<>();
    List<Daemon> others = new ArrayList<>();
    for (Daemon d : daemons.values()) {
      (d.host() == kafka ? brokers : servers.contains(d.host()) ? serverDaemons : others).add(d);
    }
    for (List<Daemon> stage : List.of(others, serverDaemons, brokers)) {
      Processes.stop(stage.stream().map(Daemon::process).toList());
    }
    net.close();
    CgroupTrees.removeTree(cgroupRoot);
    for (Daemon d : daemons.values()) {
      JobFiles.removeTree(new BerthHome(dir.resolve("home-" + d.host().name())).jobTmp());
    }
    JobFiles.removeTree(dir);
  }
}
