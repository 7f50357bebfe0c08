package dev.berth.server.command.reservation;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.CreateReservation;
import dev.berth.proto.DeleteReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationList;
import dev.berth.scheduler.Plan;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Administrators' reservations through the server's decisions: pbs_rsub, the window opening and
 * closing, submission to a reservation's queue, pbs_rdel, and the dispatch re-check. Two nodes of 4
 * CPUs; "now" is the driver's clock.
 */
class ReservationTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private CreateReservation.Builder window(long fromNow, long duration, String nodes) {
    return CreateReservation.newBuilder()
        .setStart(d.nowSeconds() + fromNow)
        .setDuration(duration)
        .setNodes(nodes);
  }

  private ReservationList rsub(Caller caller, CreateReservation.Builder request) {
    return d.client(caller, Request.newBuilder().setCreateReservation(request))
        .reply()
        .getReservations();
  }

  private Reservation reserve(CreateReservation.Builder request) {
    return rsub(ROOT, request).getReservations(0).getReservation();
  }

  private void rdel(Caller caller, String id) {
    d.client(
        caller,
        Request.newBuilder().setDeleteReservation(DeleteReservation.newBuilder().setId(id)));
  }

  private Reservation now(Reservation r) {
    return d.state.reservations().get(r.getId());
  }

  private void refusedRsub(
      Caller caller, CreateReservation.Builder request, Error.Code code, String... words) {
    int events = d.journal.size();
    refused(code, () -> rsub(caller, request), words);
    assertEquals(events, d.journal.size(), "nothing recorded");
  }

  @Test
  void onlyManagersAndOperatorsMakeReservations() {
    refusedRsub(
        ALICE,
        window(600, 3600, "1"),
        Error.Code.PERMISSION,
        "alice@login1 may not make reservations");
  }

  @Test
  void aReservationTakesWholeNodesAQueueAndTheNextJobNumber() {
    long number = d.state.nextJobNumber();
    Reservation r = reserve(window(600, 3600, "1").setName("maintenance"));
    assertEquals("R" + number + ".srv", r.getId());
    assertEquals("R" + number, r.getQueue());
    assertEquals(List.of("n1"), r.getNodesList());
    assertEquals(Reservation.State.CONFIRMED, r.getState());
    assertEquals(d.nowSeconds() + 600, r.getStart());
    assertEquals(d.nowSeconds() + 4200, r.getEnd());
    assertEquals("root@head", r.getOwner());
    Map<String, String> queue = d.state.queue(r.getQueue()).orElseThrow().getAttributesMap();
    assertEquals("root", queue.get("acl_users"));
    assertEquals("True", queue.get("acl_user_enable"));
    assertEquals("01:00:00", queue.get("resources_default.walltime"));
    assertEquals("01:00:00", queue.get("resources_max.walltime"));
    assertEquals(number + 1 + ".srv", d.submit(ALICE));
  }

  @Test
  void aWindowMustBeWhole() {
    long now = d.nowSeconds();
    refusedRsub(
        ROOT,
        CreateReservation.newBuilder().setNodes("1"),
        Error.Code.BAD_VALUE,
        "give the reservation's end (-E) or its duration (-D)");
    refusedRsub(
        ROOT,
        window(600, 0, "1").setEnd(now + 300),
        Error.Code.BAD_VALUE,
        "would end 300 s before it begins");
    refusedRsub(
        ROOT,
        window(600, 100, "1").setEnd(now + 1200),
        Error.Code.BAD_VALUE,
        "the end (-E) is 600 s after the start but the duration (-D) is 100 s");
    refusedRsub(ROOT, window(-3600, 100, "1"), Error.Code.BAD_VALUE, "would begin 3600 s ago");
    refusedRsub(ROOT, window(0, 400L * 86400, "1"), Error.Code.BAD_VALUE, "at most 366 days");
    refusedRsub(ROOT, window(0, 100, ""), Error.Code.BAD_VALUE, "give the nodes to reserve");
    refusedRsub(ROOT, window(0, 100, "1:ppn=x"), Error.Code.BAD_VALUE, "nodes=1:ppn=x");
    refusedRsub(
        ROOT,
        window(0, 100, "3"),
        Error.Code.RESOURCES_UNAVAILABLE,
        "requests 3 nodes but the cluster has 2 nodes");
    refusedRsub(
        ROOT,
        window(0, 100, "1").addUsers("al ice"),
        Error.Code.BAD_VALUE,
        "'al ice' is not a user name");
    refusedRsub(
        ROOT, window(0, 100, "1").setName("a\nb"), Error.Code.BAD_VALUE, "control character");
    refusedRsub(
        ROOT,
        window(0, 100, "1").setName("maint\u200f"),
        Error.Code.BAD_VALUE,
        "illegal value for Reserve_Name",
        "U+200F, an invisible formatting character");
  }

  @Test
  void overlappingReservationsGetOtherNodesAndLaterOnesMayReuseThem() {
    Reservation first = reserve(window(600, 3600, "1"));
    Reservation second = reserve(window(1200, 3600, "1"));
    assertEquals(List.of("n1"), first.getNodesList());
    assertEquals(List.of("n2"), second.getNodesList());
    refusedRsub(
        ROOT,
        window(3000, 100, "1"),
        Error.Code.RESOURCES_UNAVAILABLE,
        "in other reservations over the window (" + first.getId() + ", " + second.getId() + ")");
    assertEquals(List.of("n1"), reserve(window(4200, 100, "n1")).getNodesList());
  }

  @Test
  void runningJobsThatMayOutlastTheStartAreNamed() {
    String job = d.submit(ALICE, resource("nodes", "1:ppn=4"), resource("walltime", "2:00:00"));
    d.schedule();
    d.started(job);
    ReservationList reply = rsub(ROOT, window(600, 600, d.motherSuperior(job)));
    assertEquals(
        List.of(
            "job "
                + job
                + " on n1 may run until 6600 s after the reservation begins; the reservation's jobs get those CPUs only when it ends"),
        reply.getWarningsList());
  }

  @Test
  void onlyItsUsersSubmitToItsQueueAndOnlyWhatFitsItsNodesAndWindow() {
    Reservation r = reserve(window(600, 3600, "1").addUsers("alice"));
    String queue = r.getQueue();
    String job = d.submit(ALICE, attr(AttributeNames.DESTINATION, queue));
    assertEquals(3600, d.job(job).getResources().getWalltime(), "the window is its walltime");
    refused(
        Error.Code.PERMISSION,
        () -> d.submit(BOB, attr(AttributeNames.DESTINATION, queue)),
        "acl_users of queue " + queue);
    refused(
        Error.Code.EXCEEDS_QUEUE_LIMITS,
        () ->
            d.submit(
                ALICE, attr(AttributeNames.DESTINATION, queue), resource("walltime", "2:00:00")));
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> d.submit(ALICE, attr(AttributeNames.DESTINATION, queue), resource("nodes", "2")),
        "job can never run: requests 2 nodes but reservation " + r.getId() + " has 1 node");
  }

  @Test
  void itsJobsRunOnlyInsideTheWindowAndOthersStayOutOfIt() {
    Reservation r = reserve(window(600, 3600, "1").addUsers("alice"));
    String inside =
        d.submit(
            ALICE, attr(AttributeNames.DESTINATION, r.getQueue()), resource("walltime", "10:00"));
    String crossing = d.submit(BOB, resource("nodes", "1:ppn=4"), resource("walltime", "20:00"));
    String blocked = d.submit(BOB, resource("nodes", "1:ppn=4"), resource("walltime", "20:00"));
    assertEquals(List.of(crossing), d.schedule());
    assertEquals("n2", d.motherSuperior(crossing), "n1's window begins before its walltime ends");
    Plan plan = d.plan();
    assertEquals(
        "its reservation " + r.getId() + " has not begun", plan.waitingOf(inside).reason());
    assertEquals(r.getStart(), plan.waitingOf(inside).estimatedStart());
    assertTrue(
        plan.waitingOf(blocked)
            .reason()
            .startsWith("it would still run when reservation " + r.getId() + " begins"),
        plan.waitingOf(blocked).reason());

    d.advance(600);
    d.tick();
    assertEquals(Reservation.State.RUNNING, now(r).getState());
    assertEquals(List.of(inside), d.schedule());
    assertEquals("n1", d.motherSuperior(inside));
    d.started(inside);
    String queued =
        d.submit(
            ALICE, attr(AttributeNames.DESTINATION, r.getQueue()), resource("nodes", "1:ppn=4"));

    d.advance(3600);
    int from = d.journal.size();
    d.tick();
    List<Event> ended = d.eventsSince(from);
    assertEquals(Reservation.State.FINISHED, now(r).getState());
    assertEquals("its window ended", now(r).getEndReason());
    assertTrue(
        ended.stream()
            .anyMatch(
                e ->
                    e.getJobKillRequested().getJobId().equals(inside)
                        && e.getJobKillRequested()
                            .getReason()
                            .equals("reservation " + r.getId() + " ended: its window ended")),
        ended.toString());
    assertEquals(JobState.COMPLETED, d.job(queued).getState());
    assertEquals(
        "False", d.state.queue(r.getQueue()).orElseThrow().getAttributesMap().get("started"));

    d.obit(inside, 271);
    d.tick();
    assertTrue(
        d.state.reservations().containsKey(r.getId()), "its queue still holds completed jobs");
    d.advance(3600);
    d.tick(); // purges the completed jobs
    d.tick();
    assertFalse(d.state.reservations().containsKey(r.getId()));
    assertTrue(d.state.queue(r.getQueue()).isEmpty());
  }

  @Test
  void aJobRequeuedAsItsWindowClosedIsDeletedAndTheReservationGoes() {
    Reservation r = reserve(window(0, 600, "n1").addUsers("alice"));
    String job =
        d.submit(
            ALICE, attr(AttributeNames.DESTINATION, r.getQueue()), resource("walltime", "5:00"));
    assertEquals(List.of(job), d.schedule());
    d.started(job);
    d.advance(600);
    d.tick(); // the window closes: the job is to be killed
    d.run(new Decider.NodeDown("n1"), "server"); // its node is lost before the obit: requeued
    assertEquals(JobState.QUEUED, d.job(job).getState());
    d.tick();
    assertEquals(JobState.COMPLETED, d.job(job).getState());
    assertEquals("reservation " + r.getId() + " ended: its window ended", d.job(job).getComment());
    d.advance(3600);
    d.tick();
    d.tick();
    assertFalse(d.state.reservations().containsKey(r.getId()));
  }

  @Test
  void aJobOfAWindowThatJustClosedIsPlannedNowhere() {
    Reservation r = reserve(window(0, 600, "n1").addUsers("alice"));
    String job =
        d.submit(
            ALICE,
            attr(AttributeNames.DESTINATION, r.getQueue()),
            resource("nodes", "1:ppn=4"),
            resource("walltime", "5:00"));
    d.qhold(ALICE, job, "u");
    d.advance(600); // closed, and no tick yet
    d.qrls(ALICE, job, "u");
    Plan plan = d.plan();
    assertEquals(List.of(), plan.decisions());
    assertEquals("its reservation " + r.getId() + " has ended", plan.waitingOf(job).reason());
  }

  @Test
  void qalterKeepsAReservationsJobWithinItsNodes() {
    Reservation r = reserve(window(600, 3600, "1").addUsers("alice"));
    String job = d.submit(ALICE, attr(AttributeNames.DESTINATION, r.getQueue()));
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> d.qalter(ALICE, job, resource("nodes", "2:ppn=4")),
        "the altered job could never run: requests 2 nodes but reservation "
            + r.getId()
            + " has 1 node");
  }

  @Test
  void aStartTooFarAheadAndTooManyUsersAreRefused() {
    refusedRsub(
        ROOT, window(400L * 86400, 60, "1"), Error.Code.BAD_VALUE, "at most 366 days ahead");
    CreateReservation.Builder many = window(0, 60, "1");
    for (int i = 0; i <= ReservationRequest.MAX_USERS; i++) {
      many.addUsers("u" + i);
    }
    refusedRsub(ROOT, many, Error.Code.BAD_VALUE, "at most 1000");
  }

  @Test
  void aNodeThatIsNotUpIsReservedWithAWarning() {
    d.run(new Decider.NodeDown("n2"), "server");
    ReservationList reply = rsub(ROOT, window(600, 600, "n2"));
    assertEquals(
        List.of(
            "node n2 is down or offline, or its mom has not reported: the reservation's jobs"
                + " cannot use it until it is up"),
        reply.getWarningsList());
    assertEquals(
        List.of("n1"),
        rsub(ROOT, window(600, 600, "1")).getReservations(0).getReservation().getNodesList(),
        "usable nodes first");
  }

  @Test
  void aWindowThatBeginsNowIsRunningAtOnce() {
    assertEquals(Reservation.State.RUNNING, reserve(window(0, 60, "1")).getState());
  }

  @Test
  void pbsRdelEndsItForItsOwnerOrAnOperator() {
    Reservation r = reserve(window(600, 3600, "1"));
    String number = r.getQueue();
    refused(
        Error.Code.PERMISSION,
        () -> rdel(ALICE, r.getId()),
        "only its owner, managers and operators may");
    refused(
        Error.Code.UNKNOWN_RESERVATION, () -> rdel(ROOT, "R999"), "unknown reservation id R999");
    rdel(ROOT, number);
    assertEquals(Reservation.State.FINISHED, now(r).getState());
    assertEquals("deleted by root@head", now(r).getEndReason());
    refused(
        Error.Code.BAD_STATE,
        () -> rdel(ROOT, r.getId()),
        "has already finished (deleted by root@head)");
    d.tick();
    assertTrue(d.state.reservations().isEmpty(), "an empty queue goes at once");
  }

  @Test
  void aPlanMadeBeforeTheReservationCannotRunAJobIntoIt() {
    String job = d.submit(BOB, resource("nodes", "2:ppn=4"), resource("walltime", "1:00:00"));
    Plan stale = d.plan();
    reserve(window(600, 3600, "1"));
    assertEquals(List.of(), d.schedule(stale));
    assertEquals(JobState.QUEUED, d.job(job).getState());
  }

  @Test
  void itsQueueAndNodesStayWhileItLasts() {
    Reservation r = reserve(window(600, 3600, "n2"));
    refused(
        Error.Code.QUEUE_BUSY,
        () -> d.qmgr(ROOT, Manage.Command.DELETE, Manage.ObjectType.QUEUE, List.of(r.getQueue())),
        "pbs_rdel " + r.getId());
    refused(
        Error.Code.BAD_STATE,
        () -> d.qmgr(ROOT, Manage.Command.DELETE, Manage.ObjectType.NODE, List.of("n2")),
        "in reservation " + r.getId());
  }

  @Test
  void snapshotAndReplayGiveTheSameReservations() {
    reserve(window(600, 3600, "1"));
    Reservation ended = reserve(window(0, 60, "n2").addUsers("alice"));
    d.submit(ALICE, attr(AttributeNames.DESTINATION, ended.getQueue()));
    rdel(ROOT, ended.getId());
    ClusterState replayed = ClusterState.EMPTY;
    for (Event e : d.journal) {
      replayed = StateMachine.apply(replayed, e);
    }
    assertEquals(d.state, replayed);
    assertEquals(
        d.state,
        StateMachine.restore(ClusterState.EMPTY, Snapshots.image(d.state), d.state.lastSeq()));
    assertEquals(2, d.state.reservations().size());
  }
}
