package dev.berth.daemon;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import picocli.CommandLine.Option;

/** Where a daemon serves its metrics for Prometheus, if anywhere. */
final class MetricsOptions {
  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Serve Prometheus metrics at https://HOST:PORT/metrics (HOST: --host), to peers with a"
              + " monitor credential of the cluster's CA (plain HTTP when --insecure); 0 = any"
              + " free port. Default: no metrics endpoint.")
  Integer port;

  /** The option as berth up passes it on to berth serve: none when not given. */
  java.util.List<String> arguments() {
    return port == null
        ? java.util.List.of()
        : java.util.List.of("--metrics-port", Integer.toString(port));
  }

  /** Starts the endpoint for {@code registry} on {@code host}; null when none was asked for. */
  MetricsEndpoint start(DaemonTrust trust, String host, PrometheusRegistry registry)
      throws IOException {
    if (port == null) {
      return null;
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--metrics-port: " + port + " is not a port (0-65535)");
    }
    MetricsEndpoint endpoint =
        MetricsEndpoint.start(new InetSocketAddress(host, port), trust.metricsTls(), registry);
    System.out.println("berth: metrics at " + host + ":" + endpoint.port() + "/metrics");
    return endpoint;
  }
}
