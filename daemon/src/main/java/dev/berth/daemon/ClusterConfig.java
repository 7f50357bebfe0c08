package dev.berth.daemon;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.util.List;

/** The Pekko settings of one Berth process: berth.conf plus its address, roles and seed. */
final class ClusterConfig {
  private ClusterConfig() {}

  /**
   * @param host the address other members reach this process at
   * @param port 0 for any free port
   * @param seeds the {@code host:port} of members to join (any one that answers), or empty to found
   *     the cluster
   * @param standbys whether the cluster has standby servers (berth-failover.conf)
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
      config = config.withFallback(ConfigFactory.parseResources("berth-failover.conf"));
    }
    return config
        .withFallback(ConfigFactory.parseResources("berth.conf"))
        .withFallback(ConfigFactory.load());
  }
}
