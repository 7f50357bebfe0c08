package dev.berth.daemon;

import dev.berth.core.Hosts;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool$;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A single-node KRaft Kafka broker (broker and controller in one) from the Apache Kafka jars, for a
 * one-host demonstration of the replicated journal and for the tests: its data directory is
 * formatted on first start and kept, so a restarted broker has its topics. Production sites run
 * their own Kafka cluster and point Berth at it.
 */
public final class KafkaBroker implements AutoCloseable {
  private final KafkaRaftServer server;
  private final int port;

  private KafkaBroker(KafkaRaftServer server, int port) {
    this.server = server;
    this.port = port;
  }

  /**
   * Starts a broker on 127.0.0.1:{@code port} (0: any free port) with its data in {@code dir};
   * returns once it serves.
   */
  public static KafkaBroker start(Path dir, int port) throws IOException {
    Files.createDirectories(dir);
    Path config = dir.resolve("server.properties");
    Properties p = new Properties();
    if (Files.exists(config)) {
      try (var in = Files.newBufferedReader(config)) {
        p.load(in);
      }
    } else {
      int broker = port > 0 ? port : Hosts.freeLoopbackPort();
      int controller = Hosts.freeLoopbackPort();
      p.put("process.roles", "broker,controller");
      p.put("node.id", "1");
      p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controller);
      p.put(
          "listeners", "PLAINTEXT://127.0.0.1:" + broker + ",CONTROLLER://127.0.0.1:" + controller);
      p.put(
          "advertised.listeners",
          "PLAINTEXT://127.0.0.1:" + broker + ",CONTROLLER://127.0.0.1:" + controller);
      p.put("controller.listener.names", "CONTROLLER");
      p.put("inter.broker.listener.name", "PLAINTEXT");
      p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
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
      try (Writer out = Files.newBufferedWriter(config)) {
        p.store(out, "written by berth kafka");
      }
      int rc =
          StorageTool$.MODULE$.execute(
              new String[] {
                "format",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                config.toString(),
                "--standalone"
              },
              new PrintStream(OutputStream.nullOutputStream()));
      if (rc != 0) {
        throw new IOException("cannot format the Kafka storage in " + dir + " (status " + rc + ")");
      }
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
    server.startup();
    String listeners = p.getProperty("listeners");
    int bound = Integer.parseInt(listeners.replaceAll(".*PLAINTEXT://[^:]+:(\\d+).*", "$1"));
    return new KafkaBroker(server, bound);
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
  }
}
