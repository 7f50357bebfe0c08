package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {
  private static final String KEEP_OLDEST = "pekko.cluster.split-brain-resolver.keep-oldest";

  @Test
  void aClusterWithoutStandbysKeepsTheServersSideAndTakesItsTime() {
    Config c = ClusterConfig.of("127.0.0.1", 0, List.of("server"), List.of(), false);
    assertEquals("server", c.getString(KEEP_OLDEST + ".role"));
    assertFalse(c.getBoolean(KEEP_OLDEST + ".down-if-alone"));
    assertEquals(
        Duration.ofSeconds(10), c.getDuration("pekko.cluster.split-brain-resolver.stable-after"));
    assertTrue(c.getStringList("pekko.cluster.seed-nodes").isEmpty());
  }

  @Test
  void aClusterWithStandbysDownsALoneOldestMemberQuickly() {
    Config c =
        ClusterConfig.of(
            "10.0.0.2", 2552, List.of("mom"), List.of("head1:2552", "head2:2552"), true);
    assertEquals("", c.getString(KEEP_OLDEST + ".role"));
    assertTrue(c.getBoolean(KEEP_OLDEST + ".down-if-alone"));
    assertEquals(
        Duration.ofMillis(2500), c.getDuration("pekko.cluster.split-brain-resolver.stable-after"));
    assertEquals(
        Duration.ofMillis(1500),
        c.getDuration("pekko.cluster.failure-detector.acceptable-heartbeat-pause"));
    assertEquals(
        List.of("pekko://berth@head1:2552", "pekko://berth@head2:2552"),
        c.getStringList("pekko.cluster.seed-nodes"));
    assertEquals(List.of("mom"), c.getStringList("pekko.cluster.roles"));
    assertFalse(c.getBoolean("pekko.coordinated-shutdown.run-by-jvm-shutdown-hook"));
  }

  @Test
  void serversOfOneTopicShareOneTransactionalIdWhateverTheirNames() {
    JournalSpec spec = JournalSpec.parse("kafka://k1:9092,k2:9092/berth-prod?replication=3");
    BerthHome home = new BerthHome(Path.of("/var/lib/berth"));
    var a = spec.kafka(home, "head1", java.util.Optional.empty());
    var b = spec.kafka(home, "head2", java.util.Optional.empty());
    assertEquals("berth-prod", a.topic());
    assertEquals(a.transactionalId(), b.transactionalId());
    assertEquals(3, a.replicationFactor());
    assertEquals(2, a.minInsyncReplicas());
    assertEquals("k1:9092,k2:9092", a.bootstrapServers());
    assertEquals(
        "berth-journal-srv",
        JournalSpec.parse("kafka://k1:9092")
            .kafka(home, "srv", java.util.Optional.empty())
            .topic());
  }
}
