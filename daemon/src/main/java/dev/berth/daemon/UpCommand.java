package dev.berth.daemon;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatNodes;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Starts the embedded cluster in the background ({@code berth serve} in its own session, output to
 * berth.log) and returns once it accepts jobs: the socket answers and every local node is up.
 */
@Command(name = "up", description = "Start the embedded cluster in the background.")
final class UpCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

  @Mixin ClusterOptions options;

  @Mixin CgroupOptions cgroups;

  @Mixin TrustOptions trust;

  @Mixin OutputOptions output;

  @Mixin SiteScriptOptions siteScripts;

  @Mixin MetricsOptions metrics;

  @Option(names = "--timeout", defaultValue = "120", description = "Seconds to wait for readiness.")
  int timeout;

  @Override
  public Integer call() throws Exception {
    BerthHome h = home.home();
    h.secure();
    var running = Daemons.running(h);
    Path sock = home.socket(options.socket);
    if (running.isPresent()) {
      System.out.println(
          "berth: already running (pid " + running.get().pid() + ", home " + h.root() + ")");
      return 0;
    }
    Authorities.ensure(h, trust);
    long logFrom = Files.exists(h.log()) ? Files.size(h.log()) : 0;
    Process serve = spawn(h, sock);
    long started = System.currentTimeMillis();
    System.out.println("berth: starting (pid " + serve.pid() + ", log " + h.log() + ")");
    System.out.flush();
    boolean answering = false;
    long deadline = started + timeout * 1000L;
    while (System.currentTimeMillis() < deadline) {
      if (!serve.isAlive()) {
        System.err.println("berth: the server exited during start-up; the end of " + h.log() + ":");
        Daemons.tail(h.log(), 20).forEach(System.err::println);
        return 1;
      }
      if (!options.join.isEmpty() && standingBy(h, logFrom)) {
        System.out.println(
            "berth: standing by (pid "
                + serve.pid()
                + ") to take over from the active server; home "
                + h.root()
                + ", log "
                + h.log());
        return 0;
      }
      Optional<List<NodeStatus>> nodesUp = readyNodes(sock);
      if (nodesUp.isPresent() && !answering && options.nodes > nodesUp.get().size()) {
        answering = true;
        System.out.printf(
            "berth: the server answers after %.1f s; waiting for %d node(s)%n",
            (System.currentTimeMillis() - started) / 1000.0, options.nodes);
        System.out.flush();
      }
      if (nodesUp.isPresent() && nodesUp.get().size() >= options.nodes) {
        System.out.println(
            "berth: up (pid "
                + serve.pid()
                + "), socket "
                + sock
                + ", "
                + nodesUp.get().size()
                + " node(s) free, home "
                + h.root()
                + ", log "
                + h.log());
        Daemons.linesSince(h.log(), logFrom).stream()
            .filter(line -> line.startsWith("berth: metrics at "))
            .forEach(System.out::println);
        cgroups.withoutCgroups().ifPresent(why -> System.out.println(withoutCgroups(why)));
        if (!sock.equals(dev.berth.core.ServerLocation.clientSocket(System.getenv()))) {
          System.out.println("berth: point the commands at it with: export BERTH_SERVER=" + sock);
        }
        return 0;
      }
      Thread.sleep(200);
    }
    System.err.println("berth: not ready after " + timeout + " s; see " + h.log());
    return 1;
  }

  /** What a cluster without cgroups does not enforce, and how to have them. */
  private static String withoutCgroups(String why) {
    String self = System.getProperty("user.name");
    return "berth: no cgroups ("
        + why
        + "): "
        + (self.equals("root") ? "" : "jobs run as " + self + " only; ")
        + "a job with cgroup_enable is refused, jobs' CPUs are not pinned, and memory and CPU"
        + " time are enforced by polling (mem, vmem, cput) and per process (pmem, pvmem), not by"
        + " the kernel"
        + (self.equals("root") ? "" : "; start it as root for cgroups");
  }

  private Process spawn(BerthHome h, Path sock) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> argv = new ArrayList<>(List.of("setsid", java));
    argv.addAll(daemonOptions());
    argv.add("-Dberth.starter=" + Installation.starter());
    if (Installation.tools() != null) {
      argv.add("-Dberth.tools=" + Installation.tools());
    }
    argv.add("-cp");
    argv.add(System.getProperty("java.class.path"));
    argv.add(Berth.class.getName());
    argv.addAll(List.of("serve", "--home", h.root().toString(), "--socket", sock.toString()));
    argv.addAll(List.of("--host", options.host));
    argv.addAll(List.of("--cgroup-mode", cgroups.mode));
    if (cgroups.root != null) {
      argv.addAll(List.of("--cgroup-root", cgroups.root));
    }
    if (cgroups.parent != null) {
      argv.addAll(List.of("--cgroup-parent", cgroups.parent));
    }
    argv.addAll(
        List.of(
            "--nodes", Integer.toString(options.nodes), "--port", Integer.toString(options.port)));
    if (options.serverName != null) {
      argv.addAll(List.of("--server-name", options.serverName));
    }
    if (options.cpus != null) {
      argv.addAll(List.of("--cpus", options.cpus));
    }
    argv.add(options.nodeHostnames() ? "--node-hostnames" : "--no-node-hostnames");
    if (options.rootJobs) {
      argv.add("--root-jobs");
    }
    if (trust.insecure) {
      argv.add("--insecure");
    }
    if (trust.credential != null) {
      argv.addAll(List.of("--credential", trust.credential.toAbsolutePath().toString()));
    }
    JournalSpec.parse(options.journal); // a bad value fails here, not in the background
    argv.addAll(List.of("--journal", options.journal));
    if (!options.join.isEmpty()) {
      argv.addAll(List.of("--join", String.join(",", options.join)));
    }
    argv.addAll(output.arguments());
    argv.addAll(siteScripts.arguments());
    argv.addAll(metrics.arguments());
    if (options.relayPort != null) {
      argv.addAll(List.of("--relay-port", Integer.toString(options.relayPort)));
    }
    return new ProcessBuilder(argv)
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(ProcessBuilder.Redirect.appendTo(h.log().toFile()))
        .redirectErrorStream(true)
        .start();
  }

  /**
   * The heap limit, out-of-memory exit and process launch mechanism that ops/bin/berth gave this
   * JVM, for the server.
   */
  private static List<String> daemonOptions() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(
            o ->
                o.startsWith("-Xmx")
                    || o.equals("-XX:+ExitOnOutOfMemoryError")
                    || o.startsWith("-Djdk.lang.Process.launchMechanism="))
        .toList();
  }

  /** Whether the server started after {@code logFrom} has joined its cluster as a standby. */
  private static boolean standingBy(BerthHome h, long logFrom) {
    return h.standingBy()
        && Daemons.linesSince(h.log(), logFrom).stream()
            .anyMatch(line -> line.contains("cluster member up"));
  }

  /** Nodes that report and are not down; empty while the server does not answer yet. */
  private static Optional<List<NodeStatus>> readyNodes(Path sock) {
    if (!Files.exists(sock)) {
      return Optional.empty();
    }
    try (BerthClient client = BerthClient.connect(sock)) {
      Response r = client.call(Request.newBuilder().setStatNodes(StatNodes.getDefaultInstance()));
      return Optional.of(
          r.getNodes().getNodesList().stream()
              .filter(n -> !n.getState().contains("down"))
              .toList());
    } catch (ServerUnavailableException e) {
      return Optional.empty();
    }
  }
}
