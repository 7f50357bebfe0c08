package dev.berth.daemon;

import com.typesafe.config.Config;
import dev.berth.mom.Isolation;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.MomMetrics;
import dev.berth.mom.os.ContainerCache;
import dev.berth.mom.os.LinuxLauncher;
import dev.berth.mom.os.LinuxUsers;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.gpu.GpuMonitor;
import dev.berth.mom.output.OutputRoutes;
import dev.berth.mom.store.JobRecords;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.cluster.ClusterPort;
import dev.berth.security.seal.Seal;
import dev.berth.server.BerthServer;
import dev.berth.server.Standby;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.KafkaJournal;
import dev.berth.server.metrics.ServerMetrics;
import dev.berth.server.relay.RelayPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.ClusterSingletonSettings;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole cluster in one JVM: a Pekko cluster member holding the server, the scheduler and the moms
 * of this host. With the RocksDB journal the server starts at once; with a replicated (Kafka)
 * journal it is a cluster singleton among the members with role "server": this process stands by,
 * following the journal, until it is the oldest of them, and then takes over.
 */
public final class EmbeddedCluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedCluster.class);

  /** What this host's moms may keep unpacked of container images (berth mom's default). */
  static final long DEFAULT_CONTAINER_CACHE = 16L << 30;

  private final Settings settings;

  /** Where submit hosts' relays connect while this process's server is active; null for none. */
  private final RelayPort.Binding relays;

  private final ActorSystem<Void> system;
  private final AtomicReference<BerthServer> active = new AtomicReference<>();
  private final CompletableFuture<BerthServer> firstActive = new CompletableFuture<>();
  private Journal journal;
  private Standby standby;

  /** Everything the embedded cluster needs to start. */
  public record Settings(
      BerthHome home,
      Path socket,
      String serverName,
      String host,
      String clusterHost,
      int port,
      List<String> join,
      List<MomConfig> moms,
      Function<String, Isolation> isolation,
      JournalSpec journal,
      DaemonTrust trust,
      Integer relayPort,
      ServerMetrics metrics) {}

  private EmbeddedCluster(Settings settings) throws IOException {
    this.settings = settings;
    this.relays =
        settings.relayPort() == null
            ? null
            : new RelayPort.Binding(
                new InetSocketAddress(settings.clusterHost(), settings.relayPort()),
                settings.trust().relayTls());
    if (!settings.join().isEmpty() && !settings.journal().replicated()) {
      throw new IllegalArgumentException(
          "--join: a standby server needs a journal it can read while another server writes it"
              + " (--journal kafka://...); the RocksDB journal belongs to one server");
    }
    Config config =
        ClusterConfig.of(
            settings.clusterHost(),
            settings.port(),
            List.of("server"),
            settings.join(),
            !settings.join().isEmpty()); // servers that may fail over are given --join
    Budgets.server(
            ClientLimits.fromEnvironment(System.getenv(), Runtime.getRuntime().maxMemory()),
            ClusterPort.Limits.of(config),
            relays != null,
            settings.moms().size())
        .checkThisDaemon();
    system = settings.trust().actorSystem(config);
    org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(system))
        .registerOnMemberUp(() -> log.info("cluster member up at {}", clusterAddress()));
    if (settings.join().isEmpty()) {
      Cluster cluster = Cluster.get(system);
      cluster.manager().tell(Join.create(cluster.selfMember().address()));
      if (settings.journal().replicated()) {
        log.info(
            "serving alone; for standby servers give every server --join with every server's"
                + " address, its own included");
      }
    }
    try {
      if (settings.journal().replicated()) {
        standBy();
      } else {
        journal =
            settings
                .journal()
                .open(settings.home(), settings.serverName(), settings.trust().credential());
        serve(BerthServer.start(system, journal, serverConfig(), serverSeal()));
      }
      for (MomConfig mom : settings.moms()) {
        system.systemActorOf(
            MomActor.create(
                withTerminal(mom),
                new LinuxLauncher(mom.starter()),
                new LinuxUsers(mom.nativeLibrary()),
                NodeFacts.linux(),
                new JobRecords(mom.home().resolve("jobs")),
                settings.isolation().apply(mom.name()),
                settings.trust().seal(new Identity(Role.MOM, mom.name()))),
            "mom-" + mom.name(),
            org.apache.pekko.actor.typed.Props.empty());
      }
    } catch (IOException | RuntimeException e) {
      system.terminate();
      if (journal != null) {
        journal.close();
      }
      if (standby != null) {
        standby.close();
      }
      throw e;
    }
  }

  /** A local mom takes interactive sessions on this host's address, unless insecure. */
  private MomConfig withTerminal(MomConfig mom) throws IOException {
    return mom.withTerminal(settings.trust().terminal(mom.name(), settings.host(), 0));
  }

  public static EmbeddedCluster start(Settings settings) throws IOException {
    return new EmbeddedCluster(settings);
  }

  private BerthServer.Config serverConfig() {
    BerthServer.Config config =
        BerthServer.Config.defaults(settings.socket(), settings.serverName(), settings.host());
    config =
        config
            .withCommands(new HostedCommands())
            .withAccounting(settings.home().accounting())
            .withMetrics(settings.metrics());
    return relays == null ? config : config.withRelays(relays);
  }

  private Seal serverSeal() throws IOException {
    return settings.trust().seal(new Identity(Role.SERVER, settings.host()));
  }

  private void serve(BerthServer server) {
    active.set(server);
    firstActive.complete(server);
    writeRole("active");
  }

  /** Follows the journal and leaves it to the cluster singleton when to take over. */
  private void standBy() {
    KafkaJournal.Settings kafka =
        settings
            .journal()
            .kafka(settings.home(), settings.serverName(), settings.trust().credential());
    standby = Standby.start(kafka, serverConfig().snapshotEvery());
    writeRole("standby");
    ClusterSingleton.get(system)
        .init(
            SingletonActor.of(ActiveServer.create(() -> takeOver(kafka)), "active-server")
                .withSettings(ClusterSingletonSettings.create(system).withRole("server"))
                .withProps(DispatcherSelector.blocking()));
  }

  private AutoCloseable takeOver(KafkaJournal.Settings kafka) throws IOException {
    long start = System.nanoTime();
    Standby.Handover warm = standby.handOver();
    KafkaJournal written = KafkaJournal.takeOver(kafka, warm.local(), warm.reader());
    BerthServer server;
    try {
      server = BerthServer.takeOver(system, written, serverConfig(), warm.state(), serverSeal());
    } catch (IOException | RuntimeException e) {
      written.close();
      throw e;
    }
    log.info(
        "active: took over the journal {} at event {} ({} events after the standby's state) in"
            + " {} ms",
        kafka.topic(),
        server.recovery().lastSeq(),
        server.recovery().replayed(),
        (System.nanoTime() - start) / 1_000_000);
    serve(server);
    return () -> {
      active.compareAndSet(server, null);
      server.close();
      written.close();
    };
  }

  private void writeRole(String role) {
    try {
      BerthHome.writePrivate(settings.home().roleFile(), role + "\n");
    } catch (IOException e) {
      log.warn(
          "cannot record the role {} in {}: {}", role, settings.home().roleFile(), e.toString());
    }
  }

  /** The server, once this process is active (at once with the RocksDB journal). */
  public CompletionStage<BerthServer> active() {
    return firstActive;
  }

  /** The client socket the server listens on while active. */
  public Path socket() {
    return settings.socket();
  }

  /** Once this process has begun to stop, it exits within {@link StopDeadline#LIMIT}. */
  public void boundStop() {
    StopDeadline.arm(system);
  }

  /**
   * Completes when this process has ended its part in the cluster, asked to or not: its actor
   * system has terminated, or it has been out of the cluster for a moment ({@link
   * StopDeadline#end}).
   */
  public java.util.concurrent.CompletionStage<?> ended() {
    return StopDeadline.end(system);
  }

  /** Where moms on other hosts join: {@code host:port} of this process's cluster endpoint. */
  public String clusterAddress() {
    var address = Cluster.get(system).selfMember().address();
    return address.getHost().orElse("?") + ":" + address.getPort().orElse(0);
  }

  /**
   * What every local mom shares: the job starter, the job tools (or null), whether jobs see their
   * node's name as host name, the version jobs are told, and the site's prologues, epilogues and
   * health check.
   */
  public record Install(
      Path starter,
      Path tools,
      boolean nodeHostnames,
      String version,
      boolean rootJobs,
      MomMetrics metrics,
      dev.berth.mom.SiteScripts site) {}

  /**
   * Moms for this host ({@link #nodeNames}), each with its CPU share and its TMPDIR base under
   * {@code jobTmp}.
   */
  public static List<MomConfig> localMoms(
      BerthHome home, Path jobTmp, String host, int nodes, List<Integer> cpus, Install install) {
    List<MomConfig> moms = new ArrayList<>();
    List<String> names = nodeNames(host, nodes);
    for (int i = 0; i < nodes; i++) {
      String name = names.get(i);
      moms.add(
          new MomConfig(
              name,
              share(cpus, i, nodes),
              List.of(),
              home.mom(name),
              jobTmp.resolve(name),
              install.starter(),
              Duration.ofSeconds(10),
              Duration.ofSeconds(5),
              install.version(),
              install.tools(),
              install.nodeHostnames(),
              install.rootJobs(),
              OutputRoutes.inPlace(),
              null,
              List.of(),
              new ContainerCache(
                  jobTmp.resolve(".containers").resolve(name), DEFAULT_CONTAINER_CACHE),
              GpuMonitor.off(),
              null,
              install.site(),
              null,
              install.metrics().of(name)));
    }
    return moms;
  }

  /** The nodes of this host: one named after the host, or node1..nodeN. */
  public static List<String> nodeNames(String host, int nodes) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      names.add(nodes == 1 ? host : "node" + (i + 1));
    }
    return names;
  }

  /** The i-th of n slices of the CPU list; with more nodes than CPUs, slices wrap around. */
  static List<Integer> share(List<Integer> cpus, int i, int n) {
    if (n >= cpus.size()) {
      return List.of(cpus.get(i % cpus.size()));
    }
    int per = cpus.size() / n;
    int from = i * per;
    int to = i == n - 1 ? cpus.size() : from + per;
    return List.copyOf(cpus.subList(from, to));
  }

  /**
   * Stops serving (drained, with a final snapshot), then leaves the cluster, which hands the active
   * role to a standby if there is one.
   */
  @Override
  public void close() {
    BerthServer server = active.get();
    if (server != null) {
      server.close();
    }
    StopDeadline.terminate(system, "server " + settings.serverName());
    if (journal != null) {
      journal.close();
    }
    if (standby != null) {
      standby.close(); // stops following, if it still did, and closes the local copy
    }
    try {
      Files.deleteIfExists(settings.home().roleFile());
    } catch (IOException e) {
      // the next start writes it again
    }
  }
}
