package dev.berth.server.command.schedule;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.scheduler.Plan;
import dev.berth.server.command.Caller;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Preemption through the server's decisions: queue express is a preemptor, batch's jobs may be
 * requeued; alice's two jobs fill both nodes of 4 CPUs, the second started a minute after the
 * first.
 */
class PreemptionTest {
  private Driver d;
  private String older;
  private String younger;

  @BeforeEach
  void fullCluster() {
    d = Driver.withTwoNodes();
    d.preemption("Requeue");
    older = runs(ALICE);
    d.advance(60);
    younger = runs(ALICE);
  }

  private String runs(Caller who, Attribute... more) {
    List<Attribute> all =
        new ArrayList<>(List.of(resource("nodes", "1:ppn=4"), resource("walltime", "1:00:00")));
    all.addAll(List.of(more));
    String id = d.submit(who, all.toArray(Attribute[]::new));
    assertEquals(List.of(id), d.schedule());
    d.started(id);
    return id;
  }

  private String express(Caller who) {
    return d.submit(
        who,
        attr(AttributeNames.DESTINATION, "express"),
        resource("nodes", "1:ppn=4"),
        resource("walltime", "10:00"));
  }

  private List<Event> kills(List<Event> events) {
    return events.stream().filter(Event::hasJobKillRequested).toList();
  }

  @Test
  void aPreemptorsJobRequeuesTheYoungestJobAndTakesItsNode() {
    String urgent = express(BOB);
    Plan plan = d.plan();
    assertEquals(
        "preempting job " + younger + " (requeued); it starts when they have ended",
        plan.waitingOf(urgent).reason());
    int from = d.journal.size();
    assertEquals(List.of(), d.schedule(plan));
    List<Event> kills = kills(d.eventsSince(from));
    assertEquals(1, kills.size(), kills.toString());
    assertEquals(younger, kills.get(0).getJobKillRequested().getJobId());
    assertEquals(urgent, kills.get(0).getJobKillRequested().getPreemptedBy());
    assertEquals("preempted by job " + urgent + " of queue express", d.job(younger).getComment());

    String node = d.motherSuperior(younger);
    d.obit(younger, 271);
    Job requeued = d.job(younger);
    assertEquals(JobState.QUEUED, requeued.getState());
    assertEquals("requeued: preempted by job " + urgent, requeued.getComment());
    assertEquals("", requeued.getPreemptedBy());
    assertEquals(List.of(urgent), d.schedule(), "the preemptor's job goes first");
    assertEquals(node, d.motherSuperior(urgent));
    assertEquals(JobState.QUEUED, d.job(younger).getState());
  }

  @Test
  void whileItsVictimDiesNoMoreAreRequeued() {
    String urgent = express(BOB);
    d.schedule();
    int from = d.journal.size();
    assertEquals(List.of(), d.schedule());
    assertEquals(List.of(), kills(d.eventsSince(from)));
    assertEquals(
        "it starts when jobs being preempted or deleted have made room",
        d.plan().waitingOf(urgent).reason());
  }

  @Test
  void aDeleteDuringPreemptionEndsTheJob() {
    express(BOB);
    d.schedule();
    d.qdel(ALICE, younger);
    assertEquals("", d.job(younger).getPreemptedBy());
    d.obit(younger, 271);
    assertEquals(JobState.COMPLETED, d.job(younger).getState());
  }

  @Test
  void jobsThatMayNotRerunAndQueuesWithoutPreemptModeAreLeftAlone() {
    d.qdel(ALICE, younger);
    d.obit(younger, 271);
    runs(ALICE, attr(AttributeNames.RERUNABLE, "n"));
    d.qmgr(
        ROOT,
        Manage.Command.UNSET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("preempt_mode", ""));
    express(BOB);
    int from = d.journal.size();
    d.schedule();
    assertEquals(List.of(), kills(d.eventsSince(from)));
  }

  @Test
  void aPlanThatNoLongerHoldsRequeuesNothing() {
    express(BOB);
    Plan stale = d.plan();
    assertEquals(1, stale.preemptions().size());
    d.obit(younger, 0);
    d.obit(older, 0);
    int from = d.journal.size();
    d.schedule(stale);
    assertEquals(List.of(), d.eventsSince(from));
  }

  @Test
  void onlyManagersMakePreemptorsAndModesAreChecked() {
    refused(
        Error.Code.PERMISSION,
        () ->
            d.qmgr(
                ALICE,
                Manage.Command.SET,
                Manage.ObjectType.QUEUE,
                List.of("batch"),
                attr("preemptor", "true")));
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.SET,
                Manage.ObjectType.QUEUE,
                List.of("batch"),
                attr("preempt_mode", "checkpoint")),
        "expected off, requeue or suspend");
  }

  @Test
  void replayAndSnapshotKeepAPreemptionUnderWay() {
    express(BOB);
    d.schedule();
    ClusterState replayed = ClusterState.EMPTY;
    for (Event e : d.journal) {
      replayed = StateMachine.apply(replayed, e);
    }
    assertEquals(d.state, replayed);
    ClusterState restored =
        StateMachine.restore(ClusterState.EMPTY, Snapshots.image(d.state), d.state.lastSeq());
    assertEquals(d.state, restored);
    assertTrue(restored.job(younger).orElseThrow().getPreemptedBy().length() > 0);
  }
}
