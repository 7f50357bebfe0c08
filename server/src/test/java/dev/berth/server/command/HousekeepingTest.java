package dev.berth.server.command;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server's own decisions: purging, execution times, and dependencies decided by others. */
class HousekeepingTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private List<Event.BodyCase> tickKinds() {
    int mark = d.journal.size();
    d.tick();
    return d.eventsSince(mark).stream().map(Event::getBodyCase).toList();
  }

  private String depending(String type, String target) {
    return d.submit(ALICE, attr(AttributeNames.DEPEND, type + ":" + target));
  }

  @Test
  void completedJobsArePurgedAfterKeepCompleted() {
    String id = d.submit(ALICE);
    d.runToEnd(id, 0);
    d.advance(299);
    assertEquals(List.of(), tickKinds());
    d.advance(1);
    assertEquals(List.of(Event.BodyCase.JOB_PURGED), tickKinds());
    assertTrue(d.state.job(id).isEmpty());
    assertTrue(d.state.completed().isEmpty());
  }

  @Test
  void aQueuesKeepCompletedOverridesTheServers() {
    d.qmgr(
        ROOT,
        Manage.Command.CREATE,
        Manage.ObjectType.QUEUE,
        List.of("short"),
        attr("enabled", "true"),
        attr("started", "true"),
        attr("keep_completed", "10"));
    d.setServer(ROOT, attr("keep_completed", "100"));
    String batch = d.submit(ALICE);
    String quick = d.submit(ALICE, attr(AttributeNames.DESTINATION, "short"));
    d.schedule();
    d.started(batch);
    d.started(quick);
    d.obit(batch, 0);
    d.obit(quick, 0);
    d.advance(10);
    d.tick();
    assertTrue(d.state.job(quick).isEmpty(), "short keeps completed jobs 10 s");
    assertTrue(d.state.job(batch).isPresent(), "batch follows the server's 100 s");
    d.advance(90);
    d.tick();
    assertTrue(d.state.job(batch).isEmpty());
  }

  @Test
  void aCompletedArrayIsPurgedWithItsSubjobs() {
    String id = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    String n = id.substring(0, id.indexOf('['));
    d.schedule();
    for (String sub : List.of(n + "[1].srv", n + "[2].srv")) {
      d.started(sub);
      d.obit(sub, 0);
    }
    assertEquals(JobState.COMPLETED, d.job(id).getState());
    d.advance(300);
    assertEquals(List.of(Event.BodyCase.JOB_PURGED), tickKinds());
    assertTrue(d.state.jobs().isEmpty(), "subjobs leave with their array");
  }

  @Test
  void aWaitingJobIsQueuedAtItsExecutionTime() {
    String id =
        d.submit(ALICE, attr(AttributeNames.EXECUTION_TIME, Long.toString(d.nowSeconds() + 30)));
    assertEquals(JobState.WAITING, d.job(id).getState());
    d.advance(29);
    assertEquals(List.of(), tickKinds());
    d.advance(1);
    assertEquals(List.of(Event.BodyCase.JOB_RELEASED), tickKinds());
    assertEquals(JobState.QUEUED, d.job(id).getState());
    assertEquals(List.of(id), d.schedule());
  }

  @Test
  void afterokReleasesOnSuccess() {
    String first = d.submit(ALICE);
    String second = depending("afterok", first);
    assertTrue(d.state.dependencies().waits(d.job(second)), "the index finds it");
    d.runToEnd(first, 0);
    assertFalse(d.state.dependencies().waits(d.job(second)));
    assertEquals(Set.of(), d.state.dependencies().decided());
    assertEquals(JobState.QUEUED, d.job(second).getState());
    assertFalse(d.job(second).getHolds().getSystem());
    Event last = d.journal.get(d.journal.size() - 1);
    assertEquals(second, last.getJobReleased().getJobId());
    assertEquals("server", last.getActor());
  }

  @Test
  void afterokDeletesOnFailureAndTheDeletionCascades() {
    String first = d.submit(ALICE);
    String second = depending("afterok", first);
    String third = depending("afterok", second);
    String any = depending("afterany", second);
    d.runToEnd(first, 2);
    assertEquals(JobState.COMPLETED, d.job(second).getState());
    assertEquals(
        "dependency afterok:" + first + " can never be satisfied", d.job(second).getExitReason());
    assertEquals(JobState.COMPLETED, d.job(third).getState(), "deleted in a second round");
    assertEquals(JobState.QUEUED, d.job(any).getState(), "afterany is met by a deletion");
  }

  @Test
  void afterWaitsForTheStartAndAfternotokForAFailure() {
    String first = d.submit(ALICE);
    String after = depending("after", first);
    String notok = depending("afternotok", first);
    d.schedule();
    assertEquals(JobState.HELD, d.job(after).getState());
    d.started(first);
    assertEquals(JobState.QUEUED, d.job(after).getState());
    assertEquals(JobState.HELD, d.job(notok).getState());
    d.obit(first, 0);
    assertEquals(JobState.COMPLETED, d.job(notok).getState());
  }

  @Test
  void aDependencyOnAWholeArrayWaitsForEverySubjob() {
    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    String ok = depending("afterok", array);
    String notok = depending("afternotok", array);
    String any = depending("afterany", array);
    refused(
        Error.Code.BAD_DEPENDENCY,
        () -> depending("after", array),
        "after on a whole job array (" + array + ") is not supported yet");
    d.schedule();
    d.runToEnd(array.replace("[]", "[1]"), 0);
    for (String waiting : List.of(ok, notok, any)) {
      assertEquals(JobState.HELD, d.job(waiting).getState(), "one subjob still runs");
    }
    d.runToEnd(array.replace("[]", "[2]"), 0);
    assertEquals(0, d.job(array).getArrayFailed());
    assertEquals(JobState.QUEUED, d.job(ok).getState(), "every subjob ended with 0");
    assertEquals(JobState.QUEUED, d.job(any).getState());
    assertEquals(JobState.COMPLETED, d.job(notok).getState(), "none failed");

    String failing = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3"));
    String okAfterFailure = depending("afterok", failing);
    String notokAfterFailure = depending("afternotok", failing);
    d.qdel(ALICE, failing.replace("[]", "[3]"));
    d.runToEnd(failing.replace("[]", "[2]"), 1);
    d.runToEnd(failing.replace("[]", "[1]"), 0);
    assertEquals(2, d.job(failing).getArrayFailed(), "one failed, one deleted");
    assertEquals(JobState.COMPLETED, d.job(okAfterFailure).getState());
    assertEquals(JobState.QUEUED, d.job(notokAfterFailure).getState());
  }

  @Test
  void aUserHoldOutlivesTheDependency() {
    String first = d.submit(ALICE);
    String second = depending("afterok", first);
    d.qhold(ALICE, second, "u");
    d.runToEnd(first, 0);
    assertEquals(JobState.HELD, d.job(second).getState());
    assertTrue(d.job(second).getHolds().getUser());
    assertFalse(d.job(second).getHolds().getSystem());
  }

  @Test
  void aDependentArrayIsReleasedThroughItsSubjobs() {
    String first = d.submit(ALICE);
    String array =
        d.submit(
            ALICE,
            attr(AttributeNames.DEPEND, "afterok:" + first),
            attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    String n = array.substring(0, array.indexOf('['));
    assertEquals(JobState.HELD, d.job(array).getState());
    d.qhold(ALICE, n + "[1].srv", "u");
    int mark = d.journal.size();
    d.runToEnd(first, 0);
    assertNoEventNames(array, d.eventsSince(mark));
    assertEquals(JobState.HELD, d.job(n + "[1].srv").getState(), "its user hold stays");
    assertEquals(JobState.QUEUED, d.job(n + "[2].srv").getState());
    assertEquals(JobState.QUEUED, d.job(array).getState(), "Q while any subjob is queued");
    d.qrls(ALICE, n + "[1].srv", "u");
    assertEquals(2, d.state.arrayCounts(array).queued());
  }

  @Test
  void aDependentArrayWhoseDependencyFailsIsDeletedThroughItsSubjobs() {
    String first = d.submit(ALICE);
    String array =
        d.submit(
            ALICE,
            attr(AttributeNames.DEPEND, "afterok:" + first),
            attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3"));
    int mark = d.journal.size();
    d.runToEnd(first, 1);
    assertNoEventNames(array, d.eventsSince(mark));
    assertEquals(JobState.COMPLETED, d.job(array).getState());
    assertEquals(3, d.state.arrayCounts(array).completed());
  }

  /**
   * An array's state is derived from its subjobs; an event aimed at the array itself would make it
   * drift from them (or be refused once they have all ended).
   */
  private static void assertNoEventNames(String arrayId, List<Event> events) {
    for (Event e : events) {
      assertFalse(
          e.toString().contains("job_id: \"" + arrayId + "\""),
          "event aimed at the array itself: " + e);
    }
  }

  @Test
  void anArrayWhoseSubjobsAreAllHeldStaysHeldWhenItsDependencyIsMet() {
    String first = d.submit(ALICE);
    String array =
        d.submit(
            ALICE,
            attr(AttributeNames.DEPEND, "afterany:" + first),
            attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    d.qhold(ALICE, array, "u");
    d.runToEnd(first, 0);
    assertEquals(2, d.state.arrayCounts(array).held());
    assertEquals(JobState.HELD, d.job(array).getState());
  }
}
