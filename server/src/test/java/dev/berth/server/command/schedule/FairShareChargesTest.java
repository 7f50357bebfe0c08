package dev.berth.server.command.schedule;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.scheduler.DecayedUsage;
import dev.berth.scheduler.FairShare;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Fair-share usage charged from job events, and what the scheduler makes of it. */
class FairShareChargesTest {
  private static final long DAY = 86_400;
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  /** Runs a job of {@code cpus} CPUs for {@code seconds}. */
  private String run(Caller who, int cpus, long seconds, String account) {
    String id =
        account == null
            ? d.submit(who, resource("nodes", "1:ppn=" + cpus))
            : d.submit(
                who,
                resource("nodes", "1:ppn=" + cpus),
                attr(AttributeNames.ACCOUNT_NAME, account));
    assertEquals(List.of(id), d.schedule());
    d.started(id);
    d.advance(seconds);
    d.obit(id, 0);
    return id;
  }

  @Test
  void aJobsEndChargesItsCpuSecondsToItsUserAndAccount() {
    run(ALICE, 2, 1000, "physics");
    assertEquals(new DecayedUsage(2000, d.nowMillis), d.state.userUsage().get("alice"));
    assertEquals(new DecayedUsage(2000, d.nowMillis), d.state.accountUsage().get("physics"));
    run(BOB, 1, 500, null);
    assertEquals(500, d.state.accountUsage().get("users").value(), 1e-9, "without -A: the group");
    assertNull(d.state.userUsage().get("carol"));
  }

  @Test
  void earlierUsageHalvesEveryHalfLife() {
    d.setServer(ROOT, attr("fairshare_half_life", "1:00:00:00"));
    run(ALICE, 4, 100, null);
    d.advance(DAY - 100);
    run(ALICE, 4, 100, null);
    // 400 a day (less 100 s of the second run) ago, halved, plus 400 now
    double expected = 400 * Math.pow(2, -1.0) + 400;
    assertEquals(expected, d.state.userUsage().get("alice").value(), 1e-6);
  }

  @Test
  void aRequeuedJobIsChargedForWhatItHeld() {
    String id = d.submit(ALICE, resource("nodes", "1:ppn=4"));
    d.schedule();
    d.started(id);
    d.advance(60);
    d.run(new Decider.NodeDown(d.motherSuperior(id)), "server"); // requeued
    assertEquals(dev.berth.proto.JobState.QUEUED, d.job(id).getState());
    assertEquals(240, d.state.userUsage().get("alice").value(), 1e-9);
  }

  @Test
  void withAFairShareWeightTheUserWhoUsedLessGoesFirst() {
    run(ALICE, 4, 3600, null);
    d.setServer(ROOT, attr("priority_weight_fairshare", "10000"));
    String alices = d.submit(ALICE, resource("nodes", "2:ppn=4"));
    String bobs = d.submit(BOB, resource("nodes", "2:ppn=4"));
    FairShare f = ServerAttributes.fairShare(d.state, d.nowMillis);
    assertEquals(0.5, f.users().factor("alice"), 1e-9, "the only user with usage: all of both");
    assertEquals(1.0, f.users().factor("bob"), 1e-9);
    assertEquals(List.of(bobs), d.schedule());
    // bob's job has no walltime: alice's start is reserved at the end of its estimate, an hour
    assertEquals(
        "Not Running: not enough free resources; its start is reserved",
        d.plan().waitingOf(alices).comment());
    assertEquals(d.nowSeconds() + 3600, d.plan().waitingOf(alices).estimatedStart());
  }

  @Test
  void sharesAreSetPerUserAndAccount() {
    d.setServer(
        ROOT,
        op("fairshare_user", "alice", Attribute.Op.SET, "3"),
        op("fairshare_account", "physics", Attribute.Op.SET, "40"));
    FairShare f = ServerAttributes.fairShare(d.state, d.nowMillis);
    assertEquals(3, f.users().shares("alice"));
    assertEquals(1, f.users().shares("bob"));
    assertEquals(40, f.accounts().shares("physics"));
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, op("fairshare_user", "alice", Attribute.Op.SET, "0")),
        "illegal value for fairshare_user.alice: '0' (expected 1 to 1000000000; unset it for the default of 1)");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("fairshare_user", "3")),
        "name the user or account, e.g. fairshare_user.alice");
  }
}
