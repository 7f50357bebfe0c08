package dev.berth.daemon;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import dev.berth.core.Budget;
import dev.berth.core.Sizes;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.tls.TlsContexts;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's metrics for Prometheus, at {@code https://HOST:PORT/metrics}. Only a peer with a
 * credential of the cluster's CA for the monitor role gets them: mutual TLS 1.3, as Prometheus's
 * {@code tls_config} does with a monitor credential; a peer without one fails the handshake, one of
 * another role gets 403. An insecure cluster serves them over plain HTTP.
 *
 * <p>Bounded: the JDK's HTTP server here takes at most {@link #CONNECTIONS} connections and {@link
 * #SECONDS} seconds to read a request and to write its answer, requests of at most 8 KiB of
 * headers, and answers them on two threads with a short queue (beyond it a connection is closed).
 * Those settings are the JDK's system properties, read once, when the process makes its first HTTP
 * server: a daemon makes no other.
 */
final class MetricsEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);
  static final int CONNECTIONS = 16;
  static final int SECONDS = 10;

  /**
   * What one connection holds: its request's headers (8 KiB), the answer being written (a daemon's
   * metrics are some tens of KiB) and its TLS buffers (an estimate with room).
   */
  static final int CONNECTION_BYTES = 1 << 20;

  /** The endpoint's budget: its connections, a thread each. */
  static Budget budget() {
    return new Budget(
        "metrics port (Prometheus)",
        CONNECTIONS
            + " connections (each "
            + Sizes.readable(CONNECTION_BYTES)
            + "), "
            + SECONDS
            + " s to read a request and to write its answer",
        (long) CONNECTIONS * CONNECTION_BYTES,
        CONNECTIONS);
  }

  private final HTTPServer server;

  private MetricsEndpoint(HTTPServer server) {
    this.server = server;
  }

  /**
   * Serves {@code registry}, and the JVM's own metrics, at {@code at}; over mutual TLS with {@code
   * tls} (this daemon's credential), or plain HTTP when {@code tls} is null (an insecure cluster).
   */
  static MetricsEndpoint start(InetSocketAddress at, SSLContext tls, PrometheusRegistry registry)
      throws IOException {
    bound();
    JvmMetrics.builder().register(registry);
    // a thread per connection at most: the JDK server shakes hands on these threads, so a peer
    // that stalls its handshake holds one until the request time runs out, not every scrape's
    ThreadPoolExecutor threads =
        new ThreadPoolExecutor(
            0,
            CONNECTIONS,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            runnable -> {
              Thread t = new Thread(runnable, "berth-metrics");
              t.setDaemon(true);
              return t;
            });
    HTTPServer.Builder builder =
        HTTPServer.builder()
            .inetAddress(at.getAddress())
            .port(at.getPort())
            .registry(registry)
            .executorService(threads)
            .registerHealthHandler(false);
    if (tls == null) {
      log.warn("serving metrics over plain HTTP at {}: the cluster is insecure", at);
    } else {
      builder.httpsConfigurator(new MutualTls(tls)).authenticator(new MonitorsOnly());
    }
    try {
      return new MetricsEndpoint(builder.buildAndStart());
    } catch (IOException e) {
      threads.shutdown();
      throw new IOException("cannot serve metrics at " + at + ": " + e.getMessage(), e);
    }
  }

  int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.close();
  }

  /** The JDK HTTP server's bounds, unless the site set them itself. */
  private static void bound() {
    setDefault("jdk.httpserver.maxConnections", String.valueOf(CONNECTIONS));
    setDefault("sun.net.httpserver.maxReqTime", String.valueOf(SECONDS));
    setDefault("sun.net.httpserver.maxRspTime", String.valueOf(SECONDS));
    setDefault("sun.net.httpserver.maxReqHeaders", "64");
    setDefault("sun.net.httpserver.maxReqHeaderSize", "8192");
  }

  private static void setDefault(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  /** TLS 1.3, and every peer must show a certificate of the cluster's CA. */
  private static final class MutualTls extends HttpsConfigurator {
    MutualTls(SSLContext tls) {
      super(tls);
    }

    @Override
    public void configure(HttpsParameters params) {
      SSLParameters p = getSSLContext().getDefaultSSLParameters();
      p.setProtocols(new String[] {TlsContexts.PROTOCOL});
      p.setNeedClientAuth(true);
      params.setSSLParameters(p);
    }
  }

  /** Admits a peer whose certificate names the monitor role; 403 for any other. */
  private static final class MonitorsOnly extends Authenticator {
    @Override
    public Result authenticate(HttpExchange exchange) {
      if (!(exchange instanceof HttpsExchange https)) {
        return new Failure(403);
      }
      try {
        Identity peer =
            Identity.of((X509Certificate) https.getSSLSession().getPeerCertificates()[0]);
        return peer.role() == Role.MONITOR
            ? new Success(new HttpPrincipal(peer.name(), "berth"))
            : new Failure(403);
      } catch (SSLPeerUnverifiedException | IllegalArgumentException e) {
        return new Failure(403);
      }
    }
  }
}
