package dev.berth.daemon;

import com.typesafe.config.Config;
import dev.berth.mom.Isolation;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.os.LinuxLauncher;
import dev.berth.mom.os.LinuxUsers;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.store.JobRecords;
import dev.berth.server.BerthServer;
import dev.berth.server.journal.Journal;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * A whole cluster in one JVM: a Pekko cluster of one member holding the server (its journal in
 * RocksDB under the home directory, or on Kafka), the scheduler and the moms of this host.
 */
public final class EmbeddedCluster implements AutoCloseable {
  private final ActorSystem<Void> system;
  private final Journal journal;
  private final BerthServer server;

  /** Everything the embedded cluster needs to start. */
  public record Settings(
      BerthHome home,
      Path socket,
      String serverName,
      String host,
      String clusterHost,
      int port,
      List<MomConfig> moms,
      Function<String, Isolation> isolation,
      JournalSpec journal) {}

  private EmbeddedCluster(Settings settings) throws IOException {
    Config config =
        ClusterConfig.of(settings.clusterHost(), settings.port(), List.of("server"), null);
    system = ActorSystem.create(Behaviors.empty(), "berth", config);
    Cluster cluster = Cluster.get(system);
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    journal = settings.journal().open(settings.home(), settings.serverName());
    try {
      server =
          BerthServer.start(
              system,
              journal,
              BerthServer.Config.defaults(
                  settings.socket(), settings.serverName(), settings.host()));
      for (MomConfig mom : settings.moms()) {
        system.systemActorOf(
            MomActor.create(
                mom,
                new LinuxLauncher(mom.starter()),
                new LinuxUsers(mom.nativeLibrary()),
                NodeFacts.linux(),
                new JobRecords(mom.home().resolve("jobs")),
                settings.isolation().apply(mom.name())),
            "mom-" + mom.name(),
            org.apache.pekko.actor.typed.Props.empty());
      }
    } catch (IOException | RuntimeException e) {
      journal.close();
      system.terminate();
      throw e;
    }
  }

  public static EmbeddedCluster start(Settings settings) throws IOException {
    return new EmbeddedCluster(settings);
  }

  public BerthServer server() {
    return server;
  }

  /** Completes when the cluster's actor system has terminated, asked to or not. */
  public java.util.concurrent.CompletionStage<?> terminated() {
    return system.getWhenTerminated();
  }

  /** Where moms on other hosts join: {@code host:port} of this process's cluster endpoint. */
  public String clusterAddress() {
    var address = Cluster.get(system).selfMember().address();
    return address.getHost().orElse("?") + ":" + address.getPort().orElse(0);
  }

  /**
   * What every local mom shares: the job starter, the job tools (or null), whether jobs see their
   * node's name as host name, and the version jobs are told.
   */
  public record Install(Path starter, Path tools, boolean nodeHostnames, String version) {}

  /** Moms for this host: one named after the host, or node1..nodeN each with its CPU share. */
  public static List<MomConfig> localMoms(
      BerthHome home, String host, int nodes, List<Integer> cpus, Install install) {
    List<MomConfig> moms = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      String name = nodes == 1 ? host : "node" + (i + 1);
      moms.add(
          new MomConfig(
              name,
              share(cpus, i, nodes),
              List.of(),
              home.mom(name),
              home.jobTmp().resolve(name),
              install.starter(),
              Duration.ofSeconds(10),
              Duration.ofSeconds(5),
              install.version(),
              install.tools(),
              install.nodeHostnames()));
    }
    return moms;
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

  @Override
  public void close() {
    server.close();
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the journal is closed below either way
    }
    journal.close();
  }
}
