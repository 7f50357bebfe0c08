package dev.berth.server.command.config;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Manage;
import dev.berth.proto.Node;
import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.SchedulerSettings;
import dev.berth.server.command.Outcome;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** qmgr set, unset, create and delete on the server, queues and nodes. */
class ManageCommandsTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private Outcome queue(Manage.Command command, String name, Attribute... attributes) {
    return d.qmgr(ROOT, command, Manage.ObjectType.QUEUE, List.of(name), attributes);
  }

  private Outcome node(Manage.Command command, String name, Attribute... attributes) {
    return d.qmgr(ROOT, command, Manage.ObjectType.NODE, List.of(name), attributes);
  }

  private Optional<String> server(String name) {
    return d.state.serverAttribute(name);
  }

  private Map<String, String> queueAttributes(String name) {
    return d.state.queue(name).orElseThrow().getAttributesMap();
  }

  private Node n(String name) {
    return d.state.node(name).orElseThrow();
  }

  @Test
  void listsGrowAndShrinkWithPlusAndMinus() {
    d.setServer(ROOT, attr("managers", "carol@*, dave@admin1"));
    assertEquals(Optional.of("carol@*,dave@admin1"), server("managers"));
    d.setServer(ROOT, op("managers", Attribute.Op.INCR, "erin@*,carol@*"));
    assertEquals(Optional.of("carol@*,dave@admin1,erin@*"), server("managers"));
    d.setServer(ROOT, op("managers", Attribute.Op.DECR, "carol@*"));
    assertEquals(Optional.of("dave@admin1,erin@*"), server("managers"));
    d.setServer(ROOT, op("managers", Attribute.Op.DECR, "dave@admin1,erin@*"));
    assertEquals(Optional.empty(), server("managers"), "an emptied list is unset");
  }

  @Test
  void integersAddAndSubtract() {
    d.setServer(ROOT, attr("keep_completed", "100"));
    d.setServer(ROOT, op("keep_completed", Attribute.Op.INCR, "50"));
    assertEquals(Optional.of("150"), server("keep_completed"));
    d.setServer(ROOT, op("keep_completed", Attribute.Op.DECR, "25"));
    assertEquals(Optional.of("125"), server("keep_completed"));
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("keep_completed", "ten")),
        "illegal value for keep_completed: 'ten' (expected a whole number)");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, op("scheduling", Attribute.Op.INCR, "true")),
        "+= and -= apply only to numbers and lists");
  }

  @Test
  void schedulingAttributesAreTypedAndReadAsTheSchedulerSettings() {
    assertEquals(SchedulerSettings.DEFAULT, ServerAttributes.scheduler(d.state));
    d.setServer(
        ROOT,
        attr("backfill_depth", "3"),
        attr("strict_ordering", "true"),
        attr("priority_weight_age", "1000"),
        attr("priority_max_age", "2:00:00"),
        attr("priority_weight_job_size", "10"),
        attr("priority_favor_small", "yes"),
        attr("priority_weight_queue", "20"),
        attr("priority_weight_user", "0"));
    assertEquals(Optional.of("7200"), server("priority_max_age"));
    assertEquals(
        new SchedulerSettings(new PriorityWeights(1000, 7200, 10, true, 20, 0, 0), 3, true),
        ServerAttributes.scheduler(d.state));
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("priority_max_age", "0")),
        "illegal value for priority_max_age: '0' (expected a second or more)");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("priority_max_age", "a week")),
        "illegal value for priority_max_age: 'a week'");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("backfill_depth", "-1")),
        "illegal value for backfill_depth: '-1' (expected 0 or more; unset it for no limit)");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("priority_weight_age", "-5")),
        "illegal value for priority_weight_age: '-5' (expected 0 or more");
  }

  @Test
  void plusOnAnUnsetIntegerStartsFromItsDefault() {
    assertEquals("300", ServerAttributes.get(d.state, "keep_completed"));
    d.setServer(ROOT, op("keep_completed", Attribute.Op.INCR, "60"));
    assertEquals(Optional.of("360"), server("keep_completed"));
  }

  @Test
  void unsetRemovesAnAttributeWhateverTheOperator() {
    d.setServer(ROOT, attr("query_other_jobs", "yes"));
    assertEquals(Optional.of("True"), server("query_other_jobs"));
    d.qmgr(
        ROOT,
        Manage.Command.UNSET,
        Manage.ObjectType.SERVER,
        List.of(),
        op("query_other_jobs", Attribute.Op.SET, "whatever"));
    assertEquals(Optional.empty(), server("query_other_jobs"));
    assertEquals("False", ServerAttributes.get(d.state, "query_other_jobs"), "back to default");
  }

  @Test
  void unknownAndReadOnlyAttributesAreRefused() {
    refused(
        Error.Code.UNKNOWN_ATTRIBUTE,
        () -> d.setServer(ROOT, attr("no_such_attribute", "4")),
        "unknown server attribute 'no_such_attribute'");
    refused(
        Error.Code.READ_ONLY_ATTRIBUTE,
        () -> d.setServer(ROOT, attr("server_state", "Idle")),
        "attribute server_state is read-only");
    refused(
        Error.Code.READ_ONLY_ATTRIBUTE,
        () -> queue(Manage.Command.SET, "batch", attr("total_jobs", "3")),
        "attribute total_jobs is read-only");
    refused(
        Error.Code.UNKNOWN_ATTRIBUTE,
        () -> queue(Manage.Command.SET, "batch", attr("route_destinations", "x")),
        "unknown queue attribute 'route_destinations'");
    refused(
        Error.Code.UNKNOWN_RESOURCE,
        () -> d.setServer(ROOT, op("resources_max", "select", Attribute.Op.SET, "2")),
        "unknown resource 'select'");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("resources_max", "1:00:00")),
        "name the resource, e.g. resources_max.walltime");
    refused(
        Error.Code.INVALID_REQUEST,
        () -> d.qmgr(ROOT, Manage.Command.CREATE, Manage.ObjectType.SERVER, List.of("x")),
        "create server is not allowed");
  }

  @Test
  void aSetThatFailsHalfwayRecordsNothing() {
    int mark = d.journal.size();
    refused(
        Error.Code.UNKNOWN_ATTRIBUTE,
        () -> d.setServer(ROOT, attr("scheduling", "false"), attr("bogus", "1")),
        "bogus");
    assertEquals(mark, d.journal.size());
    assertEquals(Optional.of("True"), server("scheduling"));
  }

  @Test
  void queuesAreCreatedWithTheirAttributesAndDeletedWhenEmpty() {
    queue(Manage.Command.CREATE, "fast", attr("enabled", "t"), attr("Priority", "10"));
    assertEquals(
        Map.of("queue_type", "Execution", "enabled", "True", "Priority", "10"),
        queueAttributes("fast"));
    refused(
        Error.Code.QUEUE_EXISTS,
        () -> queue(Manage.Command.CREATE, "fast"),
        "queue fast already exists");
    refused(
        Error.Code.BAD_VALUE, () -> queue(Manage.Command.CREATE, "no/slash"), "illegal queue name");
    refused(
        Error.Code.BAD_VALUE,
        () -> queue(Manage.Command.CREATE, "r", attr("queue_type", "route")),
        "routing queues are not supported");

    String id = d.submit(ALICE, attr(AttributeNames.DESTINATION, "fast"));
    refused(
        Error.Code.QUEUE_BUSY,
        () -> queue(Manage.Command.DELETE, "fast"),
        "queue fast still holds jobs");
    d.qdel(ALICE, id);
    refused(Error.Code.QUEUE_BUSY, () -> queue(Manage.Command.DELETE, "fast"), "still holds jobs");
    d.advance(300);
    d.tick();
    queue(Manage.Command.DELETE, "fast");
    assertTrue(d.state.queue("fast").isEmpty());
    refused(
        Error.Code.UNKNOWN_QUEUE,
        () -> queue(Manage.Command.DELETE, "fast"),
        "unknown queue 'fast'");
  }

  @Test
  void deletingTheDefaultQueueUnsetsDefaultQueue() {
    int mark = d.journal.size();
    queue(Manage.Command.DELETE, "batch");
    assertEquals(
        List.of(Event.BodyCase.QUEUE_DELETED, Event.BodyCase.SERVER_ATTRIBUTES_CHANGED),
        d.eventsSince(mark).stream().map(Event::getBodyCase).toList());
    assertEquals(Optional.empty(), server("default_queue"));
  }

  @Test
  void setQueueWithoutANameSetsEveryQueue() {
    queue(Manage.Command.CREATE, "fast");
    d.qmgr(ROOT, Manage.Command.SET, Manage.ObjectType.QUEUE, List.of(), attr("started", "false"));
    assertEquals("False", queueAttributes("batch").get("started"));
    assertEquals("False", queueAttributes("fast").get("started"));
    queue(Manage.Command.UNSET, "fast", attr("started", ""));
    assertFalse(queueAttributes("fast").containsKey("started"));
  }

  @Test
  void defaultQueueMustNameAnExistingQueue() {
    refused(
        Error.Code.UNKNOWN_QUEUE,
        () -> d.setServer(ROOT, attr("default_queue", "nowhere")),
        "default_queue: there is no queue 'nowhere'");
    queue(Manage.Command.CREATE, "fast", attr("enabled", "true"));
    d.setServer(ROOT, attr("default_queue", "fast"));
    assertEquals("fast", d.job(d.submit(ALICE)).getQueue());
  }

  @Test
  void nextJobNumberMayOnlyGrow() {
    d.submit(ALICE);
    long next = d.state.nextJobNumber();
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("next_job_number", Long.toString(next - 1))),
        "next_job_number may only grow (it is " + next + ")");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.UNSET,
                Manage.ObjectType.SERVER,
                List.of(),
                attr("next_job_number", "")),
        "may only grow");
    d.setServer(ROOT, attr("next_job_number", "500"));
    assertEquals(500, d.state.nextJobNumber());
    assertEquals("500.srv", d.submit(ALICE));
    d.setServer(ROOT, op("next_job_number", Attribute.Op.INCR, "10"));
    assertEquals(511, d.state.nextJobNumber());
  }

  @Test
  void nodesAreCreatedWithNpAndPropertiesBeforeTheirMomReports() {
    node(Manage.Command.CREATE, "n3", attr("np", "8"), attr("properties", "fast,ib"));
    Node n3 = n("n3");
    assertEquals(8, n3.getNp());
    assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), n3.getCpuIdsList());
    assertEquals(List.of("fast", "ib"), n3.getPropertiesList());
    assertTrue(n3.getDown());
    assertFalse(n3.getRegistered());
    refused(
        Error.Code.NODE_EXISTS, () -> node(Manage.Command.CREATE, "n3"), "node n3 already exists");
    refused(
        Error.Code.BAD_VALUE,
        () -> node(Manage.Command.SET, "n3", attr("np", "0")),
        "np must be at least 1");
    node(Manage.Command.SET, "n3", op("np", Attribute.Op.INCR, "2"));
    assertEquals(10, n("n3").getCpuIdsCount());
    refused(
        Error.Code.BAD_VALUE,
        () -> node(Manage.Command.SET, "n1", attr("np", "16")),
        "np of node n1 comes from its mom's CPU set");
  }

  @Test
  void nodePropertiesStateAndNoteChange() {
    node(Manage.Command.SET, "n1", op("properties", Attribute.Op.INCR, "fast"));
    node(Manage.Command.SET, "n1", op("properties", Attribute.Op.INCR, "ib,fast"));
    assertEquals(List.of("fast", "ib"), n("n1").getPropertiesList());
    node(Manage.Command.SET, "n1", op("properties", Attribute.Op.DECR, "fast"));
    assertEquals(List.of("ib"), n("n1").getPropertiesList());

    node(Manage.Command.SET, "n1", op("state", Attribute.Op.INCR, "offline"));
    assertTrue(n("n1").getOffline());
    node(Manage.Command.SET, "n1", attr("state", "free"));
    assertFalse(n("n1").getOffline());
    refused(
        Error.Code.BAD_VALUE,
        () -> node(Manage.Command.SET, "n1", attr("state", "down")),
        "node state 'down' cannot be set");

    node(Manage.Command.SET, "n1", attr("note", "disk replaced"));
    assertEquals("disk replaced", n("n1").getNote());
    node(Manage.Command.UNSET, "n1", attr("note", ""));
    assertEquals("", n("n1").getNote());

    node(Manage.Command.SET, "n1", attr("ntype", "cluster")); // what `print node` replays
    refused(
        Error.Code.BAD_VALUE,
        () -> node(Manage.Command.SET, "n1", attr("ntype", "cloud")),
        "ntype can only be cluster");
    refused(
        Error.Code.UNKNOWN_ATTRIBUTE,
        () -> node(Manage.Command.SET, "n1", attr("color", "red")),
        "unknown node attribute 'color'");
    refused(Error.Code.UNKNOWN_NODE, () -> node(Manage.Command.SET, "n9", attr("note", "x")), "n9");
  }

  @Test
  void aNodeThatRunsJobsCannotBeDeleted() {
    String id = d.submit(ALICE);
    d.schedule();
    refused(
        Error.Code.BAD_STATE,
        () -> node(Manage.Command.DELETE, "n1"),
        "node n1 runs jobs; offline it and wait for them to end");
    node(Manage.Command.DELETE, "n2");
    assertTrue(d.state.node("n2").isEmpty());
    d.started(id);
    d.obit(id, 0);
    node(Manage.Command.DELETE, "n1");
    assertTrue(d.state.nodes().isEmpty());
  }
}
