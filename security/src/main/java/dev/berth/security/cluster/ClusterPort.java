package dev.berth.security.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.berth.core.Budget;
import dev.berth.core.QuietLog;
import dev.berth.core.Sizes;
import dev.berth.security.Role;
import java.time.Duration;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.apache.pekko.actor.BootstrapSetup;
import org.apache.pekko.actor.setup.ActorSystemSetup;
import org.apache.pekko.actor.setup.Setup;
import org.apache.pekko.remote.artery.tcp.SSLEngineProviderSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's cluster port (Pekko Artery) with bounds that Pekko has no settings for: connections in
 * all and per source address, kept or cut as Pekko accepts them ({@link ClusterPortGuard}), and a
 * deadline for each inbound TLS handshake ({@link ArteryHandshakes}). Every connection costs from
 * the moment it is accepted, handshake or not, so the bound in all is what the connections may take
 * of the heap. Refusals and cuts are logged at most once a while per source and kind.
 */
public final class ClusterPort {
  private static final Logger log = LoggerFactory.getLogger(ClusterPort.class);

  /**
   * What one cluster connection holds, for the budget: Pekko's TLS stage takes four buffers (about
   * 90 KiB) as the connection is accepted, the stream and actors around it the rest; an idle
   * connection that never shook hands measured 111 KiB (ClusterPortTest).
   */
  public static final long CONNECTION_BYTES = 128 << 10;

  /** By default the cluster port's connections may take this part of the heap: an eighth. */
  public static final int HEAP_PART = 8;

  /**
   * Connections of one source: a member opens two or three to each member it talks to (control,
   * ordinary and large messages), and every daemon of one host counts as one source.
   */
  public static final int CONNECTIONS_PER_SOURCE = 64;

  /** How long an inbound connection has to complete its TLS handshake. */
  public static final Duration HANDSHAKE = Duration.ofSeconds(10);

  /** How long one log line stands for all refusals (or cuts) of one source and kind. */
  public static final Duration QUIET = Duration.ofSeconds(10);

  /** Where a site may set the limits, in the daemon's Pekko configuration (BERTH_JAVA_OPTS -D). */
  public static final String SETTINGS = "berth.cluster-port";

  /**
   * @param connections connections open at once, in all
   * @param connectionsPerSource connections open at once from one source
   * @param handshake how long an inbound connection has to complete its TLS handshake
   */
  public record Limits(int connections, int connectionsPerSource, Duration handshake) {
    public Limits {
      if (connections < 1 || connectionsPerSource < 1) {
        throw new IllegalArgumentException(
            SETTINGS
                + ": connections and connections-per-source must be positive, not "
                + connections
                + " and "
                + connectionsPerSource);
      }
      if (handshake.isNegative() || handshake.isZero()) {
        throw new IllegalArgumentException(
            SETTINGS + ".handshake must be a positive time, not " + handshake);
      }
    }

    /** The defaults for a heap of {@code maxHeap} bytes: an eighth of it for connections. */
    public static Limits forHeap(long maxHeap) {
      int connections =
          (int) Math.max(CONNECTIONS_PER_SOURCE, maxHeap / HEAP_PART / CONNECTION_BYTES);
      return new Limits(connections, CONNECTIONS_PER_SOURCE, HANDSHAKE);
    }

    /** {@code berth.cluster-port.*} where {@code config} sets them, else the defaults. */
    public static Limits of(Config config) {
      Limits d = forHeap(Runtime.getRuntime().maxMemory());
      Config c = config.hasPath(SETTINGS) ? config.getConfig(SETTINGS) : ConfigFactory.empty();
      return new Limits(
          c.hasPath("connections") ? c.getInt("connections") : d.connections(),
          c.hasPath("connections-per-source")
              ? c.getInt("connections-per-source")
              : d.connectionsPerSource(),
          c.hasPath("handshake") ? c.getDuration("handshake") : d.handshake());
    }

    /** The most the connections may hold, in bytes. */
    public long bytes() {
      return connections * CONNECTION_BYTES;
    }

    /**
     * The port's budget: its connections, each at what Artery holds for one, on two I/O threads.
     */
    public Budget budget() {
      return new Budget(
          "cluster port (daemons; any host that reaches it)",
          connections
              + " connections (each "
              + Sizes.readable(CONNECTION_BYTES)
              + "), "
              + connectionsPerSource
              + " a source address, "
              + handshake.toSeconds()
              + " s to shake hands",
          bytes(),
          2);
    }
  }

  /** Carries the guard to {@link ClusterPortMailbox}, which Pekko makes. */
  static final class Guarded extends Setup {
    private final ClusterPortGuard guard;

    Guarded(ClusterPortGuard guard) {
      this.guard = guard;
    }

    ClusterPortGuard guard() {
      return guard;
    }
  }

  private ClusterPort() {}

  /**
   * The setup of an actor system whose cluster port holds to the limits {@code config} sets (or the
   * defaults): over mutual TLS with {@code tls} (this daemon's credential) admitting members whose
   * credentials name one of {@code peers}, or over plain TCP when {@code tls} is null.
   */
  public static ActorSystemSetup setup(Config config, SSLContext tls, Set<Role> peers) {
    Limits limits = Limits.of(config);
    QuietLog refusals = new QuietLog(log::warn, QUIET, System::currentTimeMillis);
    Config guarded =
        ConfigFactory.parseString(
                String.join(
                    "\n",
                    "pekko.io.tcp.management-dispatcher = \"" + SETTINGS + ".io-dispatcher\"",
                    SETTINGS + ".io-dispatcher {",
                    "  type = Dispatcher",
                    "  executor = thread-pool-executor",
                    "  thread-pool-executor.fixed-pool-size = 2",
                    "  mailbox-type = \"" + ClusterPortMailbox.class.getName() + "\"",
                    "}",
                    tls == null ? "" : "pekko.remote.artery.transport = tls-tcp"))
            .withFallback(config);
    ActorSystemSetup setup =
        ActorSystemSetup.create(BootstrapSetup.create(guarded))
            .withSetup(new Guarded(new ClusterPortGuard(limits, refusals)));
    if (tls == null) {
      return setup;
    }
    ArteryTls artery =
        new ArteryTls(
            tls, peers, new ArteryHandshakes(limits.handshake(), refusals)::watch, refusals);
    return setup.withSetup(SSLEngineProviderSetup.create(system -> artery));
  }
}
