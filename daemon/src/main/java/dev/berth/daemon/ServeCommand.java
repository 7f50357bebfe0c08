package dev.berth.daemon;

import dev.berth.core.BerthVersion;
import dev.berth.core.Hosts;
import dev.berth.mom.MomConfig;
import dev.berth.mom.MomMetrics;
import dev.berth.mom.os.JobFiles;
import dev.berth.mom.os.NodeFacts;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.server.metrics.ServerMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Runs the embedded cluster in the foreground until SIGTERM (what {@code berth up} starts). */
@Command(name = "serve", description = "Run the embedded cluster in the foreground.")
final class ServeCommand implements Callable<Integer> {
  @Mixin HomeOptions home;

  @Mixin ClusterOptions options;

  @Mixin CgroupOptions cgroups;

  @Mixin TrustOptions trust;

  @Mixin SiteScriptOptions siteScripts;

  @Mixin OutputOptions output;

  @Mixin MetricsOptions metricsOptions;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final MomMetrics momMetrics = new MomMetrics(registry);

  @Override
  public Integer call() throws Exception {
    BerthHome h = home.home();
    h.secure();
    String host = Hosts.localName();
    String name = options.serverName != null ? options.serverName : host;
    List<Integer> cpuIds =
        options.cpus != null
            ? NodeFacts.parseCpuList(options.cpus)
            : NodeFacts.linux().onlineCpus();
    // What can refuse to start comes first, before anything is made outside the home.
    java.util.Map<String, dev.berth.mom.Isolation> isolations = new java.util.HashMap<>();
    for (String node : EmbeddedCluster.nodeNames(host, options.nodes)) {
      isolations.put(node, cgroups.isolation(h, home.isDefault(), node, momMetrics.of(node)));
    }
    DaemonTrust daemonTrust = DaemonTrust.of(h, new Identity(Role.SERVER, host), trust);
    JournalSpec journal = JournalSpec.parse(options.journal);
    try (MetricsEndpoint metrics = metricsOptions.start(daemonTrust, options.host, registry)) {
      return serve(h, host, name, cpuIds, isolations, daemonTrust, journal);
    }
  }

  private int serve(
      BerthHome h,
      String host,
      String name,
      List<Integer> cpuIds,
      java.util.Map<String, dev.berth.mom.Isolation> isolations,
      DaemonTrust daemonTrust,
      JournalSpec journal)
      throws Exception {
    List<MomConfig> moms = options.nodes > 0 ? localMoms(h, host, cpuIds, daemonTrust) : List.of();
    EmbeddedCluster cluster =
        EmbeddedCluster.start(
            new EmbeddedCluster.Settings(
                h,
                home.socket(options.socket),
                name,
                host,
                options.host,
                options.port,
                options.join,
                moms,
                isolations::get,
                journal,
                daemonTrust,
                options.relayPort,
                new ServerMetrics(registry)));
    BerthHome.writePrivate(h.pidFile(), ProcessHandle.current().pid() + "\n");
    cluster.boundStop();
    CountDownLatch stopped = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean asked =
        new java.util.concurrent.atomic.AtomicBoolean();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  asked.set(true);
                  cluster.close();
                  try {
                    Files.deleteIfExists(h.pidFile());
                  } catch (java.io.IOException ignored) {
                    // the next start checks whether that pid still runs
                  }
                  try {
                    if (!moms.isEmpty()) {
                      // The job TMPDIR base; the moms removed theirs in it if empty.
                      Files.deleteIfExists(moms.get(0).tmpBase().getParent());
                    }
                  } catch (java.io.IOException ignored) {
                    // a job that runs on still has its TMPDIR there
                  }
                  stopped.countDown();
                }));
    String serving =
        "serving "
            + name
            + " on "
            + cluster.socket()
            + " with "
            + moms.size()
            + " node(s); state in "
            + h.root()
            + "; moms join at "
            + cluster.clusterAddress();
    if (!cluster.active().toCompletableFuture().isDone()) {
      System.out.println(
          "berth: standing by for "
              + name
              + " (following the journal; state in "
              + h.root()
              + "); cluster member at "
              + cluster.clusterAddress());
    }
    cluster.active().thenRun(() -> System.out.println("berth: " + serving));
    // A server that stops by itself (its journal failed, another server fenced it) must not leave
    // a process behind that looks alive: it exits, and its supervisor decides what comes next.
    cluster.ended().thenRun(stopped::countDown);
    stopped.await();
    if (!asked.get()) {
      System.err.println("berth: the server stopped by itself; see the log above");
      return 1;
    }
    return 0;
  }

  /** This host's moms, with the base of their jobs' TMPDIRs made. */
  private List<MomConfig> localMoms(
      BerthHome h, String host, List<Integer> cpuIds, DaemonTrust trust)
      throws java.io.IOException, dev.berth.mom.os.HookFiles.Refused {
    Path jobTmp = h.jobTmp();
    List<MomConfig> moms =
        EmbeddedCluster.localMoms(
            h,
            jobTmp,
            host,
            options.nodes,
            cpuIds,
            new EmbeddedCluster.Install(
                Installation.starter(),
                Installation.tools(),
                options.nodeHostnames(),
                BerthVersion.NUMBER,
                options.rootJobs,
                momMetrics,
                siteScripts.scripts(null)));
    JobFiles.prepareBase(jobTmp);
    List<MomConfig> delivering = new java.util.ArrayList<>();
    for (MomConfig mom : moms) {
      JobFiles.prepareBase(mom.tmpBase());
      delivering.add(
          mom.withOutput(
              output.routes(trust, mom.name()), output.courier(trust, mom.name(), mom.home())));
    }
    return delivering;
  }
}
