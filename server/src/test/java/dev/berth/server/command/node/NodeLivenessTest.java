package dev.berth.server.command.node;

import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.ServerAttributeNames;
import dev.berth.server.command.Decider;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** When a node is down and when it is up again, without the server's actor. */
class NodeLivenessTest {
  private Driver d;
  private NodeLiveness liveness;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    liveness = new NodeLiveness(d.state, d.nowMillis);
  }

  private List<String> overdue() {
    return liveness.overdue(d.state, d.nowMillis).stream().map(NodeLiveness.Silent::node).toList();
  }

  @Test
  void aNodeSilentForLongerThanNodeCheckRateIsOverdue() {
    d.advance(150);
    assertEquals(List.of(), overdue(), "150 s is the default node_check_rate, not past it");
    liveness.heard("n2", d.nowMillis);
    d.advance(1);
    assertEquals(List.of("n1"), overdue());
    assertEquals(
        151_000, liveness.overdue(d.state, d.nowMillis).get(0).silentMillis(), "silent since");
  }

  @Test
  void nodeCheckRateIsTheServersSetting() {
    d.setServer(ROOT, attr(ServerAttributeNames.NODE_CHECK_RATE, "30"));
    d.advance(31);
    assertEquals(List.of("n1", "n2"), overdue().stream().sorted().toList());
  }

  @Test
  void aNodeMarkedDownIsNotOverdueAgain() {
    d.advance(151);
    d.run(new Decider.NodeDown("n1"), "server");
    assertTrue(d.state.node("n1").orElseThrow().getDown());
    assertEquals(List.of("n2"), overdue());
  }

  @Test
  void aNodeNeverHeardFromSinceTheStartIsNotOverdue() {
    d.hello("n3", 4); // registered after the liveness began: nothing heard yet
    d.advance(1000);
    assertFalse(overdue().contains("n3"));
  }

  @Test
  void aDownNodeIsBackUpOnlyWhenItsMomIsConnected() {
    d.run(new Decider.NodeDown("n1"), "server");
    assertTrue(NodeLiveness.backUp(d.state.node("n1"), true));
    assertFalse(NodeLiveness.backUp(d.state.node("n1"), false), "a late letter of a gone mom");
    assertFalse(NodeLiveness.backUp(d.state.node("n2"), true), "n2 is up");
    assertFalse(NodeLiveness.backUp(d.state.node("n9"), true), "no such node");
  }
}
