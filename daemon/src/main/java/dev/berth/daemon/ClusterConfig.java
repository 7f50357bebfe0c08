package dev.berth.daemon;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.util.List;

/** The Pekko settings of one Berth process: berth.conf plus its address, roles and seed. */
final class ClusterConfig {
  private ClusterConfig() {}

  /**
   * Split-brain resolution when standby servers wait to take over. Keep-oldest with down-if-alone
   * downs the oldest member when it alone is cut off, and the next oldest server then takes over;
   * Pekko decides "alone" only when the other side has at least two members, counted with the
   * strategy's role. With role "server" that would take three servers, so here every member counts:
   * two servers and one mom suffice. Every member of such a cluster must use this (the leader of
   * each side decides for its side): servers on a replicated journal, and moms given more than one
   * server address.
   */
  static final String FAILOVER =
      "pekko.cluster.split-brain-resolver.keep-oldest { role = \"\", down-if-alone = on }";

  /**
   * @param host the address other members reach this process at
   * @param port 0 for any free port
   * @param seeds the {@code host:port} of members to join (any one that answers), or empty to found
   *     the cluster
   * @param standbys whether the cluster has standby servers (see {@link #FAILOVER})
   */
  static Config of(
      String host, int port, List<String> roles, List<String> seeds, boolean standbys) {
    Config config =
        ConfigFactory.empty()
            .withValue(
                "pekko.remote.artery.canonical.hostname", ConfigValueFactory.fromAnyRef(host))
            .withValue("pekko.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(port))
            .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(roles));
    if (!seeds.isEmpty()) {
      config =
          config.withValue(
              "pekko.cluster.seed-nodes",
              ConfigValueFactory.fromIterable(
                  seeds.stream().map(s -> "pekko://berth@" + s).toList()));
    }
    if (standbys) {
      config = config.withFallback(ConfigFactory.parseString(FAILOVER));
    }
    return config
        .withFallback(ConfigFactory.parseResources("berth.conf"))
        .withFallback(ConfigFactory.load());
  }
}
