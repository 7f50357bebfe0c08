package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** qdel, qhold, qrls, qalter and qsig: who may, and what each does in each job state. */
class JobControlTest {
  private static final Caller CAROL = new Caller("carol", "staff", "admin1");
  private static final Caller OLGA = new Caller("olga", "staff", "login1");

  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private List<Event.BodyCase> kinds(List<Event> events) {
    return events.stream().map(Event::getBodyCase).toList();
  }

  private String running(Caller owner) {
    String id = d.submit(owner);
    assertTrue(d.schedule().contains(id));
    d.started(id);
    return id;
  }

  @Test
  void usersCannotActOnJobsTheyCannotSee() {
    String id = d.submit(ALICE);
    int events = d.journal.size();
    refused(Error.Code.UNKNOWN_JOB, () -> d.qdel(BOB, id), "Unknown Job Id " + id);
    refused(Error.Code.UNKNOWN_JOB, () -> d.qhold(BOB, id, "u"), "Unknown Job Id " + id);
    refused(
        Error.Code.UNKNOWN_JOB,
        () -> d.qalter(BOB, id, attr(AttributeNames.PRIORITY, "5")),
        "Unknown Job Id");
    refused(Error.Code.UNKNOWN_JOB, () -> d.qsig(BOB, id, "TERM"), "Unknown Job Id");
    assertEquals(events, d.journal.size());
  }

  @Test
  void usersWhoSeeOthersJobsStillCannotControlThem() {
    d.setServer(ROOT, attr("query_other_jobs", "True"));
    String id = d.submit(ALICE);
    String why = "bob@login1 may not delete job " + id + ": it belongs to alice";
    refused(Error.Code.PERMISSION, () -> d.qdel(BOB, id), why);
    refused(Error.Code.PERMISSION, () -> d.qhold(BOB, id, "u"), "may not hold job " + id);
    refused(Error.Code.PERMISSION, () -> d.qrls(BOB, id, "u"), "may not release job " + id);
    refused(
        Error.Code.PERMISSION,
        () -> d.qalter(BOB, id, attr(AttributeNames.PRIORITY, "5")),
        "may not alter job " + id);
    refused(Error.Code.PERMISSION, () -> d.qsig(BOB, id, "TERM"), "may not signal job " + id);
    assertEquals(JobState.QUEUED, d.job(id).getState());
  }

  @Test
  void rootManagersAndOperatorsMayControlAnyJob() {
    d.setServer(
        ROOT, attr("managers", "carol@admin1"), attr("operators", "olga@login1,otto@*.example"));
    String a = d.submit(ALICE);
    d.qhold(OLGA, a, "u");
    assertEquals(JobState.HELD, d.job(a).getState());
    d.qrls(CAROL, a, "u");
    assertEquals(JobState.QUEUED, d.job(a).getState());
    d.qalter(OLGA, a, attr(AttributeNames.PRIORITY, "7"));
    assertEquals(7, d.job(a).getPriority());
    d.qdel(ROOT, a);
    assertEquals(JobState.COMPLETED, d.job(a).getState());

    Caller elsewhere = new Caller("olga", "staff", "other-host");
    String b = d.submit(ALICE);
    refused(Error.Code.UNKNOWN_JOB, () -> d.qdel(elsewhere, b), "Unknown Job Id");
    d.qdel(new Caller("otto", "staff", "ws7.example"), b);
    assertEquals(JobState.COMPLETED, d.job(b).getState());
  }

  @Test
  void qdelOfAQueuedJobDeletesIt() {
    String id = d.submit(ALICE);
    int mark = d.journal.size();
    d.qdel(ALICE, id);
    List<Event> events = d.eventsSince(mark);
    assertEquals(List.of(Event.BodyCase.JOB_DELETED), kinds(events));
    assertEquals("deleted by alice@login1", events.get(0).getJobDeleted().getReason());
    Job j = d.job(id);
    assertEquals(JobState.COMPLETED, j.getState());
    assertEquals("deleted by alice@login1", j.getExitReason());
    refused(Error.Code.BAD_STATE, () -> d.qdel(ALICE, id), "has already completed");
  }

  @Test
  void qdelOfARunningJobRequestsOneKill() {
    String id = running(ALICE);
    int mark = d.journal.size();
    d.qdel(ALICE, id);
    assertEquals(List.of(Event.BodyCase.JOB_KILL_REQUESTED), kinds(d.eventsSince(mark)));
    assertEquals("alice@login1", d.job(id).getDeleteRequestedBy());
    int again = d.journal.size();
    Outcome second = d.qdel(ALICE, id);
    assertEquals(again, d.journal.size(), "a second qdel adds nothing");
    assertTrue(second.reply().hasAck());
    d.obit(id, 271);
    assertEquals(JobState.COMPLETED, d.job(id).getState());
    assertEquals(271, d.job(id).getExitStatus());
  }

  @Test
  void qdelPurgeByAManagerEndsARunningJobAtOnce() {
    String id = running(ALICE);
    refused(Error.Code.PERMISSION, () -> d.qdelPurge(ALICE, id), "purge jobs (qdel -p)");
    int mark = d.journal.size();
    d.qdelPurge(ROOT, id);
    List<Event> events = d.eventsSince(mark);
    assertEquals(List.of(Event.BodyCase.JOB_EXITED), kinds(events));
    assertEquals(265, events.get(0).getJobExited().getExitStatus());
    assertEquals("purged by root@head", events.get(0).getJobExited().getReason());
    assertEquals(JobState.COMPLETED, d.job(id).getState());
    assertTrue(d.state.usage("n1").idle() && d.state.usage("n2").idle(), "CPUs are free again");
  }

  @Test
  void qdelOfAnArrayDeletesQueuedSubjobsAndKillsRunningOnes() {
    String id =
        d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-2"), resource("ncpus", "4"));
    String number = id.substring(0, id.indexOf('['));
    assertEquals(List.of(number + "[0].srv", number + "[1].srv"), d.schedule());
    int mark = d.journal.size();
    d.qdel(ALICE, id);
    assertEquals(
        List.of(
            Event.BodyCase.JOB_KILL_REQUESTED,
            Event.BodyCase.JOB_KILL_REQUESTED,
            Event.BodyCase.JOB_DELETED),
        kinds(d.eventsSince(mark)));
    assertEquals(JobState.RUNNING, d.job(id).getState());
    d.obit(number + "[0].srv", 271);
    d.obit(number + "[1].srv", 271);
    assertEquals(JobState.COMPLETED, d.job(id).getState());
  }

  @Test
  void holdAndReleaseActOnlyOnJobsThatAreNotRunning() {
    String id = d.submit(ALICE);
    d.qhold(ALICE, id, "");
    assertEquals(JobState.HELD, d.job(id).getState());
    assertTrue(d.job(id).getHolds().getUser(), "no types means a user hold");
    refused(Error.Code.PERMISSION, () -> d.qrls(ALICE, id, "s"), "only operators and managers");
    refused(Error.Code.BAD_VALUE, () -> d.qhold(ALICE, id, "x"), "illegal hold type 'x'");
    d.qrls(ALICE, id, "u");
    assertEquals(JobState.QUEUED, d.job(id).getState());
    int mark = d.journal.size();
    d.qrls(ALICE, id, "u");
    assertEquals(mark, d.journal.size(), "releasing a job that is not held records nothing");

    String run = running(ALICE);
    refused(Error.Code.BAD_STATE, () -> d.qhold(ALICE, run, "u"), "is running and cannot be held");
    d.obit(run, 0);
    refused(Error.Code.BAD_STATE, () -> d.qhold(ALICE, run, "u"), "has completed");
  }

  @Test
  void qholdOfAnArrayHoldsSubjobsThatAreNotRunning() {
    String id =
        d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3"), resource("ncpus", "4"));
    d.schedule(); // two run, one stays queued
    d.qhold(ALICE, id, "u");
    Job parent = d.job(id);
    assertEquals(JobState.RUNNING, parent.getState());
    assertEquals(1, d.state.arrayCounts(id).held());
    d.qrls(ALICE, id, "u");
    assertEquals(1, d.state.arrayCounts(id).queued());
  }

  @Test
  void qalterChecksTheNewValuesLikeASubmission() {
    String id = d.submit(ALICE, resource("walltime", "10:00"));
    d.qalter(ALICE, id, resource("walltime", "20:00"), attr(AttributeNames.JOB_NAME, "renamed"));
    Event last = d.journal.get(d.journal.size() - 1);
    assertEquals(
        List.of("Resource_List.walltime", "Job_Name"), last.getJobAltered().getChangedList());
    assertEquals(1200, d.job(id).getResources().getWalltime());
    assertEquals("renamed", d.job(id).getName());
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> d.qalter(ALICE, id, resource("nodes", "5")),
        "the altered job could never run: requests 5 nodes");
    refused(
        Error.Code.READ_ONLY_ATTRIBUTE,
        () -> d.qalter(ALICE, id, attr(AttributeNames.DESTINATION, "other")),
        "attribute destination cannot be altered");
    d.qalter(ALICE, id, attr(AttributeNames.HOLD_TYPES, "u"));
    assertEquals(JobState.HELD, d.job(id).getState());
    assertEquals(Event.BodyCase.JOB_HELD, d.journal.get(d.journal.size() - 1).getBodyCase());

    String run = running(ALICE);
    refused(
        Error.Code.MODIFY_RUNNING,
        () -> d.qalter(ALICE, run, attr(AttributeNames.PRIORITY, "1")),
        "is running; its attributes are fixed");
    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    refused(
        Error.Code.INVALID_REQUEST,
        () -> d.qalter(ALICE, array, attr(AttributeNames.PRIORITY, "1")),
        "qalter of a whole job array is not supported");
  }

  @Test
  void qsigTellsTheMotherSuperiorOfARunningJob() {
    String id = running(ALICE);
    Outcome out = d.qsig(ALICE, id, "USR1");
    assertEquals(1, out.notices().size());
    Outcome.Notice n = out.notices().get(0);
    assertEquals(d.motherSuperior(id), n.node());
    assertEquals(10, n.message().getSignal().getSignal());
    assertTrue(out.events().isEmpty(), "a signal is not a change of state");
    refused(Error.Code.UNKNOWN_SIGNAL, () -> d.qsig(ALICE, id, "SIGWHAT"), "");
    String queued = d.submit(ALICE, resource("nodes", "2:ppn=4"));
    refused(Error.Code.BAD_STATE, () -> d.qsig(ALICE, queued, "TERM"), "is not running");
  }

  @Test
  void onlyManagersMayChangeServerAndQueueSettings() {
    d.setServer(ROOT, attr("operators", "olga@*"), attr("managers", "carol@*"));
    refused(
        Error.Code.PERMISSION,
        () -> d.setServer(OLGA, attr("scheduling", "false")),
        "olga@login1 may not change server attributes: only managers may");
    refused(
        Error.Code.PERMISSION,
        () -> d.setServer(ALICE, attr("query_other_jobs", "true")),
        "alice@login1 may not change server attributes");
    refused(
        Error.Code.PERMISSION,
        () ->
            d.qmgr(
                OLGA,
                Manage.Command.CREATE,
                Manage.ObjectType.QUEUE,
                List.of("fast"),
                attr("enabled", "true")),
        "may not create queues");
    d.setServer(CAROL, attr("scheduling", "false"));
    assertEquals("False", ServerAttributes.get(d.state, "scheduling"));
  }

  @Test
  void operatorsMayOfflineNodesButNotReshapeThem() {
    d.setServer(ROOT, attr("operators", "olga@*"));
    d.qmgr(
        OLGA, Manage.Command.SET, Manage.ObjectType.NODE, List.of("n1"), attr("state", "offline"));
    assertTrue(d.state.node("n1").orElseThrow().getOffline());
    d.qmgr(
        OLGA,
        Manage.Command.SET,
        Manage.ObjectType.NODE,
        List.of("n1"),
        op("state", Attribute.Op.DECR, "offline"),
        attr("note", "back from repair"));
    assertFalse(d.state.node("n1").orElseThrow().getOffline());
    assertEquals("back from repair", d.state.node("n1").orElseThrow().getNote());
    refused(
        Error.Code.PERMISSION,
        () ->
            d.qmgr(
                OLGA,
                Manage.Command.SET,
                Manage.ObjectType.NODE,
                List.of("n1"),
                attr("properties", "fast")),
        "only managers may");
    refused(
        Error.Code.PERMISSION,
        () ->
            d.qmgr(
                ALICE,
                Manage.Command.SET,
                Manage.ObjectType.NODE,
                List.of("n1"),
                attr("state", "offline")),
        "only managers and operators may");
  }
}
