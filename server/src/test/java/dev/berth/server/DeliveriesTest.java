package dev.berth.server;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.MomInbound;
import dev.berth.server.command.Decider;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the server owes moms for suspensions: a freeze, then a thaw, to every node of the job, sent
 * again each retry interval until that node reports it done. Alice's job holds 4 CPUs on each of n1
 * and n2 and is suspended for bob's express job; the retry interval is 10 s.
 */
class DeliveriesTest {
  private static final long RETRY = 10_000;
  private Driver d;
  private Deliveries deliveries;
  private String victim;
  private String urgent;
  private long now = 1_000_000; // epoch millis, far past a first send at 0

  @BeforeEach
  void suspendedOnTwoNodes() {
    d = Driver.withTwoNodes();
    d.preemption("suspend");
    victim = d.submit(ALICE, resource("nodes", "2:ppn=4"), resource("walltime", "1:00:00"));
    d.schedule();
    d.started(victim);
    deliveries = new Deliveries(RETRY);
    deliveries.refreshAll(d.state);
    urgent =
        d.submit(
            Driver.BOB,
            attr(AttributeNames.DESTINATION, "express"),
            resource("nodes", "1:ppn=4"),
            resource("walltime", "10:00"));
    d.schedule();
    deliveries.refresh(d.state, List.of(victim));
  }

  /** The freezes and thaws due now, as "n1 suspend" or "n2 resume", in node order. */
  private List<String> due() {
    return deliveries.due(d.state, now).stream()
        .filter(x -> x.message().getBodyCase() == MomInbound.BodyCase.SUSPEND)
        .map(x -> x.node() + (x.message().getSuspend().getSuspend() ? " suspend" : " resume"))
        .sorted()
        .toList();
  }

  @Test
  void eachNodeIsToldUntilItReportsAndAQuickResumeIsNotLost() {
    assertEquals(List.of("n1 suspend", "n2 suspend"), due());
    assertEquals(List.of(), due(), "not again before the retry interval");
    assertFalse(deliveries.suspendReported("n1", victim, true));
    assertFalse(deliveries.suspendReported("n2", victim, false)); // an answer to something else
    now += RETRY;
    assertEquals(List.of("n2 suspend"), due());
    assertTrue(deliveries.suspendReported("n2", victim, true), "the last node: confirmed");
    assertFalse(deliveries.suspendReported("n2", victim, true), "only once");
    now += RETRY;
    assertEquals(List.of(), due());
    d.run(new Decider.SuspendConfirmed(victim), "server");

    // resumed in the same second it was suspended: no time suspended, still a thaw to send
    assertEquals(List.of(urgent), d.schedule());
    d.started(urgent);
    d.obit(urgent, 0);
    d.schedule();
    assertEquals(0, d.job(victim).getSuspendedAt());
    assertEquals(0, d.job(victim).getSuspendedSeconds());
    deliveries.refresh(d.state, List.of(victim));
    assertEquals(List.of("n1 resume", "n2 resume"), due());
    deliveries.suspendReported("n1", victim, false);
    deliveries.suspendReported("n2", victim, false);
    now += RETRY;
    assertEquals(List.of(), due());
  }

  @Test
  void aKilledSuspendedJobIsKilledNotThawedOrFrozen() {
    d.qdel(ALICE, victim);
    deliveries.refresh(d.state, List.of(victim));
    List<Deliveries.Delivery> all = deliveries.due(d.state, now);
    assertEquals(1, all.size(), all.toString());
    assertEquals(MomInbound.BodyCase.KILL, all.get(0).message().getBodyCase());
  }

  @Test
  void aRestartedServerFreezesAgainWhatIsSuspended() {
    Deliveries fresh = new Deliveries(RETRY);
    fresh.refreshAll(d.state);
    assertEquals(
        2,
        fresh.due(d.state, now).stream()
            .filter(x -> x.message().hasSuspend() && x.message().getSuspend().getSuspend())
            .count());
  }
}
