package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Sizes;
import dev.berth.security.cluster.ClusterPort;
import dev.berth.server.endpoint.ClientLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BudgetsTest {
  private static final long MIB = 1 << 20;

  /** A server with the defaults for {@code heap}. */
  private static Budgets server(long heap, boolean relayPort, int moms) {
    return Budgets.server(
        ClientLimits.defaults(heap), ClusterPort.Limits.forHeap(heap), relayPort, moms);
  }

  private static Budgets mom(long heap) {
    return Budgets.mom(ClusterPort.Limits.forHeap(heap));
  }

  private static Budgets relay(long heap) {
    return Budgets.relay(ClientLimits.defaults(heap), true);
  }

  /** The daemons as the packages and the tests start them: each fits, with room to work. */
  @Test
  void theDefaultsFitEveryDaemonAsItIsStarted() {
    record Case(String what, Budgets budgets, long heap) {}
    for (Case c :
        List.of(
            new Case("berth-server.service", server(4096 * MIB, true, 0), 4096 * MIB),
            new Case("berth serve, default heap", server(2048 * MIB, true, 0), 2048 * MIB),
            new Case("berth up --nodes 3", server(2048 * MIB, false, 3), 2048 * MIB),
            new Case("berth-mom.service", mom(1024 * MIB), 1024 * MIB),
            new Case("berth-relay.service", relay(512 * MIB), 512 * MIB),
            new Case("a test's small mom", mom(256 * MIB), 256 * MIB))) {
      c.budgets().check(c.heap());
      assertTrue(
          c.budgets().heapBytes() <= c.heap() * 95 / 100,
          c.what() + " leaves under 5% of its heap for its work:\n" + c.budgets().table(c.heap()));
    }
  }

  /**
   * The tests' small servers (256 MiB, 512 MiB with a relay port) fit once they take fewer
   * connections, as they do.
   */
  @Test
  void aSmallHeapFitsWithFewerConnections() {
    for (long heap : new long[] {256 * MIB, 512 * MIB}) {
      boolean relayPort = heap > 256 * MIB;
      assertThrows(IllegalStateException.class, () -> server(heap, relayPort, 0).check(heap));
      Budgets.server(
              ClientLimits.defaults(heap).with("connections=1024"),
              ClusterPort.Limits.forHeap(heap),
              relayPort,
              0)
          .check(heap);
    }
  }

  @Test
  void aLimitRaisedBeyondTheHeapIsRefusedNamingTheLargestInputs() {
    long heap = 2048 * MIB;
    Budgets raised =
        Budgets.server(
            ClientLimits.defaults(heap).with("buffer=3g"),
            ClusterPort.Limits.forHeap(heap),
            false,
            0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> raised.check(heap));
    assertTrue(
        e.getMessage().startsWith("berth serve: what its inputs may hold at their worst, "),
        e.getMessage());
    assertTrue(e.getMessage().contains("is more than its heap of 2048 MiB"), e.getMessage());
    assertTrue(e.getMessage().contains("BERTH_HEAP"), e.getMessage());
    assertTrue(e.getMessage().contains("; client socket (local users): 3"), "largest first: " + e);
    assertTrue(e.getMessage().contains("buffer=3072 MiB"), e.getMessage());
  }

  @Test
  void tooManyEmbeddedMomsForTheHeapAreRefused() {
    long heap = 2048 * MIB;
    server(heap, false, 5).check(heap); // as docs/security.md says
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> server(heap, false, 6).check(heap));
    assertTrue(e.getMessage().startsWith("berth up (6 moms): "), e.getMessage());
  }

  @Test
  void theSettingsOfTheEnvironmentCountAsTheyWillBeUsed() {
    long heap = 2048 * MIB;
    ClientLimits lowered =
        ClientLimits.fromEnvironment(Map.of(ClientLimits.VARIABLE, "connections=1024"), heap);
    long saved =
        server(heap, false, 0).heapBytes()
            - Budgets.server(lowered, ClusterPort.Limits.forHeap(heap), false, 0).heapBytes();
    assertTrue(saved == 3072L * ClientLimits.CONNECTION_BYTES, Sizes.readable(saved));
  }

  /** docs/security.md shows the tables these budgets make: change both together. */
  @Test
  void theSecurityGuideShowsTheseBudgets() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "security.md"));
    StringBuilder lacking = new StringBuilder();
    for (String table :
        List.of(
            server(4096 * MIB, true, 0).table(4096 * MIB),
            server(2048 * MIB, false, 1).table(2048 * MIB),
            mom(1024 * MIB).table(1024 * MIB),
            relay(512 * MIB).table(512 * MIB))) {
      if (!guide.contains(table)) {
        lacking.append('\n').append(table);
      }
    }
    assertTrue(lacking.isEmpty(), "docs/security.md lacks, under Budgets:" + lacking);
  }
}
