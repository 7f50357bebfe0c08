package dev.berth.server.command;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.CheckpointJob;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.MomControl;
import dev.berth.proto.MomOrder;
import dev.berth.proto.MoveJob;
import dev.berth.proto.OrderJobs;
import dev.berth.proto.Request;
import dev.berth.proto.RerunJob;
import dev.berth.proto.RunJobNow;
import dev.berth.server.state.EligibleKey;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** qrun, qrerun, qmove, qorder, qchkpt and momctl's orders: who may, and what each does. */
class OperatorCommandsTest {
  private static final Caller OLGA = new Caller("olga", "staff", "login1");

  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    d.setServer(ROOT, attr("operators", "olga@login1"));
  }

  private Outcome qrun(Caller caller, String id, String... hosts) {
    return d.client(
        caller,
        Request.newBuilder()
            .setRunJob(RunJobNow.newBuilder().setJobId(id).addAllHosts(List.of(hosts))));
  }

  private Outcome qrerun(Caller caller, String id) {
    return d.client(caller, Request.newBuilder().setRerun(RerunJob.newBuilder().setJobId(id)));
  }

  private Outcome qmove(Caller caller, String destination, String id) {
    return d.client(
        caller,
        Request.newBuilder()
            .setMove(MoveJob.newBuilder().setJobId(id).setDestination(destination)));
  }

  private Outcome qorder(Caller caller, String first, String second) {
    return d.client(
        caller,
        Request.newBuilder()
            .setOrder(OrderJobs.newBuilder().setJobId(first).setOtherJobId(second)));
  }

  private Outcome momctl(Caller caller, String node, MomControl.Action action, String job) {
    return d.client(
        caller,
        Request.newBuilder()
            .setMomControl(MomControl.newBuilder().setNode(node).setAction(action).setJobId(job)));
  }

  private void queue(String name, Object... attributes) {
    d.qmgr(ROOT, Manage.Command.CREATE, Manage.ObjectType.QUEUE, List.of(name));
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of(name),
        attr("queue_type", "execution"),
        attr("enabled", "True"),
        attr("started", "True"));
    for (int i = 0; i < attributes.length; i += 2) {
      d.qmgr(
          ROOT,
          Manage.Command.SET,
          Manage.ObjectType.QUEUE,
          List.of(name),
          attr((String) attributes[i], (String) attributes[i + 1]));
    }
  }

  private String running(Caller owner) {
    String id = d.submit(owner);
    assertTrue(d.schedule().contains(id));
    d.started(id);
    return id;
  }

  @Test
  void qrunStartsAJobNowOnTheNamedNodeWhateverTheLimitsButOnlyForOperators() {
    d.setServer(ROOT, attr("max_running", "0"));
    String id = d.submit(ALICE, resource("nodes", "1:ppn=2"));
    assertEquals(List.of(), d.schedule(), "the limit keeps the scheduler from it");
    refused(Error.Code.PERMISSION, () -> qrun(ALICE, id), "only managers and operators");

    qrun(OLGA, id, "n2");
    assertEquals(JobState.RUNNING, d.job(id).getState());
    assertEquals("n2", d.motherSuperior(id));
    assertEquals(2, d.job(id).getExecNodes(0).getCpusCount());
    refused(Error.Code.BAD_STATE, () -> qrun(OLGA, id), "job already running");
  }

  @Test
  void qrunReleasesAHeldJobAndRefusesWhatCannotFit() {
    String held =
        d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"), resource("nodes", "1:ppn=4"));
    refused(Error.Code.UNKNOWN_NODE, () -> qrun(ROOT, held, "n9"), "Unknown node 'n9'");
    String big = d.submit(ALICE, resource("nodes", "1:ppn=4"));
    qrun(ROOT, big, "n1");
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> qrun(ROOT, held, "n1"),
        "does not fit on n1 now",
        "nodes=1:ppn=4");
    assertEquals(JobState.HELD, d.job(held).getState(), "a refused qrun leaves it held");
    qrun(ROOT, held);
    assertEquals(JobState.RUNNING, d.job(held).getState());
    assertEquals("n2", d.motherSuperior(held));

    String after = d.submit(ALICE, attr(AttributeNames.DEPEND, "afterok:" + big));
    refused(Error.Code.BAD_STATE, () -> qrun(ROOT, after), "waits for its dependencies");
  }

  @Test
  void qrerunKillsARunningJobAndItsEndQueuesItAgain() {
    String id = running(ALICE);
    refused(Error.Code.PERMISSION, () -> qrerun(ALICE, id), "only managers and operators");
    qrerun(OLGA, id);
    Event kill = d.journal.get(d.journal.size() - 1);
    assertTrue(kill.getJobKillRequested().getRerun(), "" + kill);
    assertEquals("olga@login1", d.job(id).getDeleteRequestedBy(), "its mom is told to kill it");
    d.obit(id, 271);
    assertEquals(JobState.QUEUED, d.job(id).getState());
    assertEquals("requeued: rerun by olga@login1", d.job(id).getComment());
    assertTrue(d.job(id).getRerunRequestedBy().isEmpty());
    int events = d.journal.size();
    qrerun(OLGA, id);
    assertEquals(events, d.journal.size(), "a queued job is left as it is");
  }

  @Test
  void aDeleteAfterARerunEndsTheJobAndNoMailSaysARerunIsADelete() {
    String deleted = running(ALICE);
    qrerun(ROOT, deleted);
    Event kill = d.journal.get(d.journal.size() - 1);
    assertTrue(
        dev.berth.server.mail.MailRules.notice(kill, d.job(deleted)).isEmpty(),
        "the owner gets no 'deleted' mail for a rerun");
    d.qdel(ALICE, deleted);
    d.obit(deleted, 271);
    assertEquals(JobState.COMPLETED, d.job(deleted).getState());
  }

  @Test
  void qrerunRefusesJobsThatAreNotRerunnableOrNotRunning() {
    String once = d.submit(ALICE, attr(AttributeNames.RERUNABLE, "n"));
    assertTrue(d.schedule().contains(once));
    d.started(once);
    refused(
        Error.Code.NOT_RERUNNABLE, () -> qrerun(ROOT, once), "job " + once + " is not rerunnable");
    String held = d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"));
    refused(Error.Code.BAD_STATE, () -> qrerun(ROOT, held), "is held, not running");
  }

  @Test
  void ownersMoveTheirQueuedJobsToQueuesThatTakeThem() {
    queue("long");
    queue("closed", "enabled", "False");
    queue("staff", "acl_user_enable", "True", "acl_users", "bob");
    String id = d.submit(ALICE);
    qmove(ALICE, "long", id);
    assertEquals("long", d.job(id).getQueue());
    Event moved = d.journal.get(d.journal.size() - 1);
    assertEquals(List.of("queue"), moved.getJobAltered().getChangedList());

    refused(Error.Code.INVALID_REQUEST, () -> qmove(ALICE, "long", id), "already in queue long");
    refused(Error.Code.UNKNOWN_QUEUE, () -> qmove(ALICE, "nowhere", id), "unknown queue");
    refused(Error.Code.QUEUE_DISABLED, () -> qmove(ALICE, "closed", id), "not enabled");
    refused(Error.Code.PERMISSION, () -> qmove(ALICE, "staff", id), "acl_users of queue staff");
    d.setServer(ROOT, attr("query_other_jobs", "True"));
    refused(Error.Code.PERMISSION, () -> qmove(BOB, "batch", id), "may not move job " + id);
    qmove(ROOT, "closed", id); // a manager's move skips the queue's checks
    assertEquals("closed", d.job(id).getQueue());

    String runs = running(ALICE);
    refused(Error.Code.BAD_STATE, () -> qmove(ALICE, "long", runs), "is running");
  }

  @Test
  void anArrayMovesWithItsSubjobs() {
    queue("long");
    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-1"));
    qmove(ALICE, "long@" + Driver.SERVER, array);
    String first = array.replace("[]", "[0]");
    assertEquals("long", d.job(array).getQueue());
    assertEquals("long", d.job(first).getQueue());
    assertEquals("long", d.job(array.replace("[]", "[1]")).getQueue());
    refused(Error.Code.INVALID_REQUEST, () -> qmove(ALICE, "batch", first), "moves with its array");
  }

  @Test
  void qorderSwapsTwoJobsPlacesAndTheirQueues() {
    d.setServer(ROOT, attr("scheduling", "False"));
    String first = d.submit(ALICE);
    String second = d.submit(ALICE);
    String bobs = d.submit(BOB);
    qorder(ALICE, first, second);
    assertEquals(
        List.of(second, first, bobs),
        d.state.eligible().keySet().stream().map(EligibleKey::jobId).toList());
    refused(Error.Code.UNKNOWN_JOB, () -> qorder(ALICE, first, bobs), "Unknown Job Id " + bobs);
    qorder(OLGA, first, bobs);
    assertEquals(
        List.of(second, bobs, first),
        d.state.eligible().keySet().stream().map(EligibleKey::jobId).toList());

    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-1"));
    refused(
        Error.Code.INVALID_REQUEST,
        () -> qorder(ALICE, first, array.replace("[]", "[1]")),
        "qorder takes plain jobs");

    queue("long");
    String other = d.submit(ALICE, attr(AttributeNames.DESTINATION, "long"));
    qorder(ALICE, second, other);
    assertEquals("long", d.job(second).getQueue());
    assertEquals("batch", d.job(other).getQueue());
  }

  @Test
  void qchkptSaysNoJobIsCheckpointable() {
    String id = running(ALICE);
    refused(
        Error.Code.INVALID_REQUEST,
        () ->
            d.client(
                ALICE, Request.newBuilder().setCheckpoint(CheckpointJob.newBuilder().setJobId(id))),
        "job is not checkpointable");
    refused(
        Error.Code.UNKNOWN_JOB,
        () ->
            d.client(
                ALICE,
                Request.newBuilder().setCheckpoint(CheckpointJob.newBuilder().setJobId("99"))),
        "Unknown Job Id");
  }

  @Test
  void momctlOrdersGoToTheMomForOperatorsAndStopsForManagers() {
    Outcome cycle = momctl(OLGA, "n1", MomControl.Action.CYCLE, "");
    assertEquals("n1", cycle.notices().get(0).node());
    assertEquals(MomOrder.Action.REPORT, cycle.notices().get(0).message().getOrder().getAction());
    refused(
        Error.Code.PERMISSION,
        () -> momctl(ALICE, "n1", MomControl.Action.CYCLE, ""),
        "only managers and operators");
    refused(
        Error.Code.PERMISSION,
        () -> momctl(OLGA, "n1", MomControl.Action.SHUTDOWN, ""),
        "only managers may");
    refused(
        Error.Code.INVALID_REQUEST,
        () -> momctl(ROOT, "n1", MomControl.Action.SHUTDOWN, ""),
        "stops with the server");
    refused(Error.Code.UNKNOWN_NODE, () -> momctl(ROOT, "n9", MomControl.Action.CYCLE, ""), "n9");

    String id = running(ALICE);
    String node = d.motherSuperior(id);
    refused(
        Error.Code.BAD_STATE,
        () -> momctl(OLGA, node, MomControl.Action.CLEAR_JOB, id),
        "end it with qdel");
    Outcome clear = momctl(OLGA, node, MomControl.Action.CLEAR_JOB, "77");
    assertEquals("77." + Driver.SERVER, clear.notices().get(0).message().getKill().getJobId());
    MomOrder all =
        momctl(OLGA, node, MomControl.Action.CLEAR_JOB, "all")
            .notices()
            .get(0)
            .message()
            .getOrder();
    assertEquals(MomOrder.Action.CLEAR, all.getAction());
    assertEquals(List.of(id), all.getKeepList(), "the mom keeps what the server runs there");

    d.hello(Driver.node("n9", 2).toBuilder().setStopsRemotely(true).build());
    assertEquals(
        MomOrder.Action.SHUTDOWN,
        momctl(ROOT, "n9", MomControl.Action.SHUTDOWN, "")
            .notices()
            .get(0)
            .message()
            .getOrder()
            .getAction());
  }
}
