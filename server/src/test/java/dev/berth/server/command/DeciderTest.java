package dev.berth.server.command;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.Events.alloc;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Manage;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Request;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatNodes;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.config.QueueAttributes;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The decider's own rules: bootstrap, what is a query, and the re-check of run decisions. */
class DeciderTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private List<String> dispatched(RunDecision... decisions) {
    Outcome out = d.decide(new Decider.Schedule(List.of(decisions)));
    assertTrue(out.notices().isEmpty());
    return out.events().stream().map(e -> e.getJobDispatched().getJobId()).toList();
  }

  private static RunDecision run(String id, NodeAllocation... allocations) {
    return new RunDecision(id, List.of(allocations));
  }

  @Test
  void bootstrapMakesTheDefaultQueueOnlyOnAnEmptyJournal() {
    Driver fresh = new Driver();
    fresh.run(new Decider.Bootstrap(), "server");
    assertEquals(
        List.of(Event.BodyCase.QUEUE_CREATED, Event.BodyCase.SERVER_ATTRIBUTES_CHANGED),
        fresh.journal.stream().map(Event::getBodyCase).toList());
    assertEquals("batch", ServerAttributes.get(fresh.state, "default_queue"));
    assertTrue(QueueAttributes.flag(fresh.state.queue("batch").orElseThrow(), "enabled"));
    assertTrue(fresh.decide(new Decider.Bootstrap()).events().isEmpty(), "only once");
  }

  @Test
  void readsAreQueriesAndEverythingElseGoesThroughTheJournal() {
    assertTrue(Decider.isQuery(Request.newBuilder().setStatJobs(StatJobs.newBuilder()).build()));
    assertTrue(Decider.isQuery(Request.newBuilder().setStatNodes(StatNodes.newBuilder()).build()));
    assertTrue(
        Decider.isQuery(
            Request.newBuilder()
                .setManage(Manage.newBuilder().setCommand(Manage.Command.PRINT))
                .build()));
    assertFalse(
        Decider.isQuery(
            Request.newBuilder()
                .setManage(Manage.newBuilder().setCommand(Manage.Command.SET))
                .build()));
    assertFalse(Decider.isQuery(Driver.submitRequest(List.of()).build()));
    refused(
        Error.Code.UNKNOWN_REQUEST,
        () -> d.client(ALICE, Request.newBuilder().setStatJobs(StatJobs.newBuilder())),
        "does not change state");
  }

  @Test
  void aPlanIsCheckedAgainstTheStateItArrivesIn() {
    String a = d.submit(ALICE);
    String b = d.submit(ALICE);
    List<RunDecision> plan = d.plan().decisions();
    assertEquals(2, plan.size());
    d.qdel(ALICE, a);
    assertEquals(List.of(b), dispatched(plan.toArray(RunDecision[]::new)));
  }

  @Test
  void decisionsThatNoLongerHoldAreDropped() {
    String a = d.submit(ALICE);
    String held = d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"));
    assertEquals(List.of(), dispatched(run("99.srv", alloc("n1", 0))), "unknown job");
    assertEquals(List.of(), dispatched(run(held, alloc("n1", 0))), "held job");
    assertEquals(List.of(), dispatched(run(a, alloc("n9", 0))), "unknown node");
    assertEquals(List.of(), dispatched(run(a, alloc("n1", 4))), "no CPU 4 on n1");
    NodeAllocation tooBig = alloc("n1", 0).toBuilder().setMem(17L << 30).build();
    assertEquals(List.of(), dispatched(run(a, tooBig)), "more memory than n1 has");
    d.qmgr(
        ROOT, Manage.Command.SET, Manage.ObjectType.NODE, List.of("n1"), attr("state", "offline"));
    assertEquals(List.of(), dispatched(run(a, alloc("n1", 0))), "offline node");
    assertEquals(List.of(a), dispatched(run(a, alloc("n2", 0))));
  }

  @Test
  void twoDecisionsForTheSameCpuStartOnlyTheFirst() {
    String a = d.submit(ALICE);
    String b = d.submit(ALICE);
    assertEquals(List.of(a), dispatched(run(a, alloc("n1", 0, 1)), run(b, alloc("n1", 1, 2))));
    assertEquals(List.of(a, b), dispatched(run(a, alloc("n1", 0, 1)), run(b, alloc("n1", 2, 3))));
  }

  /**
   * Plans made from different views may meet (the one made in the write that records a job's end,
   * and one a cycle made before it): each decision is checked against the limits as the ones before
   * it left them.
   */
  @Test
  void decisionsThatWouldPassARunningLimitAreDropped() {
    String a = d.submit(ALICE);
    String b = d.submit(ALICE);
    String c = d.submit(BOB);
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("max_running", "1"));
    assertEquals(List.of(a), dispatched(run(a, alloc("n1", 0)), run(b, alloc("n1", 1))));
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("max_running", "5"));
    d.setServer(ROOT, attr("max_user_run", "1"));
    assertEquals(
        List.of(a, c),
        dispatched(run(a, alloc("n1", 0)), run(b, alloc("n1", 1)), run(c, alloc("n1", 2))),
        "one each for alice and bob");
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("started", "false"));
    assertEquals(List.of(), dispatched(run(a, alloc("n1", 0))), "a stopped queue");
  }

  @Test
  void anArrayIsNeverStartedItselfOnlyItsSubjobs() {
    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    assertEquals(List.of(), dispatched(run(array, alloc("n1", 0))));
    String n = array.substring(0, array.indexOf('['));
    assertEquals(List.of(n + "[1].srv"), dispatched(run(n + "[1].srv", alloc("n1", 0))));
  }

  @Test
  void theSchedulerRespectsStoppedQueuesAndNodeFlags() {
    String id = d.submit(ALICE, resource("nodes", "1:ppn=4"));
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("started", "false"));
    assertEquals(List.of(), d.schedule());
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("started", "true"));
    d.qmgr(
        ROOT, Manage.Command.SET, Manage.ObjectType.NODE, List.of("n1"), attr("state", "offline"));
    assertEquals(List.of(id), d.schedule());
    assertEquals("n2", d.motherSuperior(id));
  }
}
