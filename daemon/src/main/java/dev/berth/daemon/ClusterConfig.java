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
   * @param seed the server's {@code host:port} to join, or null to found the cluster
   */
  static Config of(String host, int port, List<String> roles, String seed) {
    Config config =
        ConfigFactory.empty()
            .withValue(
                "pekko.remote.artery.canonical.hostname", ConfigValueFactory.fromAnyRef(host))
            .withValue("pekko.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(port))
            .withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(roles));
    if (seed != null) {
      config =
          config.withValue(
              "pekko.cluster.seed-nodes",
              ConfigValueFactory.fromIterable(List.of("pekko://berth@" + seed)));
    }
    return config
        .withFallback(ConfigFactory.parseResources("berth.conf"))
        .withFallback(ConfigFactory.load());
  }
}
