package dev.berth.daemon;

import dev.berth.core.Hosts;
import dev.berth.security.pki.Credential;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool$;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka broker (broker and controller in one) from the Apache Kafka jars, for a
 * one-host demonstration of the replicated journal and for the tests: its data directory is
 * formatted on first start and kept, so a restarted broker has its topics and ACLs. With the
 * broker's credential every listener is mutual TLS and only the cluster's servers may use the
 * journal ({@link BrokerSecurity}); without one it speaks plaintext to anyone (--insecure).
 * Production sites run their own Kafka cluster and point Berth at it.
 */
public final class KafkaBroker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);
  private static final String CLIENT = "CLIENT";
  private static final String CONTROLLER = "CONTROLLER";

  private final KafkaRaftServer server;
  private final Listeners listeners;

  /** Where clients connect and where the controller listens (on loopback: only the broker does). */
  private record Listeners(String host, int client, int controller) {
    String clientAddress() {
      return host + ":" + client;
    }

    String all() {
      return CLIENT + "://" + clientAddress() + "," + CONTROLLER + "://127.0.0.1:" + controller;
    }

    /** As an earlier start wrote them to {@code server.properties}. */
    static Listeners of(Properties written) {
      String host = null;
      int client = 0;
      int controller = 0;
      for (String listener : written.getProperty("listeners").split(",")) {
        String address = listener.substring(listener.indexOf("://") + 3);
        int colon = address.lastIndexOf(':');
        int port = Integer.parseInt(address.substring(colon + 1));
        if (listener.startsWith(CONTROLLER + "://")) {
          controller = port;
        } else {
          host = address.substring(0, colon);
          client = port;
        }
      }
      return new Listeners(host, client, controller);
    }
  }

  private KafkaBroker(KafkaRaftServer server, Listeners listeners) {
    this.server = server;
    this.listeners = listeners;
  }

  /**
   * Starts a broker for clients on {@code host}:{@code port} (0: any free port) with its data in
   * {@code dir}, secured with {@code credential} or, without one, plaintext; returns once it
   * serves. A broker started again keeps the address of its first start.
   */
  public static KafkaBroker start(Path dir, String host, int port, Optional<Credential> credential)
      throws IOException {
    Files.createDirectories(dir);
    Path config = dir.resolve("server.properties");
    boolean formatted = Files.exists(config);
    Listeners listeners;
    if (formatted) {
      Properties written = new Properties();
      try (var in = Files.newBufferedReader(config)) {
        written.load(in);
      }
      listeners = Listeners.of(written);
    } else {
      listeners =
          new Listeners(host, port > 0 ? port : Hosts.freeLoopbackPort(), Hosts.freeLoopbackPort());
    }
    Properties p = settings(dir, listeners);
    if (credential.isPresent()) {
      p.putAll(BrokerSecurity.settings(credential.get(), List.of(CLIENT, CONTROLLER)));
    } else {
      p.put("listener.security.protocol.map", CLIENT + ":PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
      log.warn(
          "INSECURE: the Kafka broker at {} speaks plaintext and lets anyone who reaches it read"
              + " and write every journal",
          listeners.clientAddress());
    }
    write(p, config);
    if (!formatted) {
      format(dir, config);
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
    server.startup();
    KafkaBroker broker = new KafkaBroker(server, listeners);
    if (credential.isPresent()) {
      try {
        BrokerSecurity.grant(broker.bootstrapServers(), credential.get());
      } catch (ExecutionException e) {
        broker.close();
        throw new IOException(
            "cannot grant the servers their ACLs on the broker: " + e.getCause().getMessage(), e);
      }
    }
    return broker;
  }

  /** One node that is broker and controller, with one-replica internal topics. */
  private static Properties settings(Path dir, Listeners listeners) {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + listeners.controller());
    p.put("listeners", listeners.all());
    p.put("advertised.listeners", listeners.all());
    p.put("controller.listener.names", CONTROLLER);
    p.put("inter.broker.listener.name", CLIENT);
    p.put("log.dirs", dir.resolve("data").toString());
    p.put("num.partitions", "1");
    // One broker: internal topics with one replica and one partition (50 by default, which
    // makes the first transaction take seconds).
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    return p;
  }

  private static void write(Properties p, Path config) throws IOException {
    try (Writer out = Files.newBufferedWriter(config)) {
      p.store(out, "written by berth kafka at each start");
    }
  }

  private static void format(Path dir, Path config) throws IOException {
    int rc =
        StorageTool$.MODULE$.execute(
            new String[] {
              "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString(), "--standalone"
            },
            new PrintStream(OutputStream.nullOutputStream()));
    if (rc != 0) {
      throw new IOException("cannot format the Kafka storage in " + dir + " (status " + rc + ")");
    }
  }

  /** {@code HOST:PORT} of the client listener. */
  public String bootstrapServers() {
    return listeners.clientAddress();
  }

  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
  }
}
