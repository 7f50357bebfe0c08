package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Limits against one user flooding the server: the server's and a queue's max_user_queuable, and a
 * queue's max_queuable. Unfinished jobs count, each subjob of an array counts, completed jobs do
 * not; a refusal names the limit and records nothing.
 */
class QueuedJobLimitsTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    d.qmgr(
        ROOT,
        Manage.Command.CREATE,
        Manage.ObjectType.QUEUE,
        List.of("fast"),
        attr("enabled", "true"),
        attr("started", "true"));
  }

  private void setQueue(String queue, String name, String value) {
    d.qmgr(ROOT, Manage.Command.SET, Manage.ObjectType.QUEUE, List.of(queue), attr(name, value));
  }

  @Test
  void theServersLimitCountsAUsersJobsInEveryQueue() {
    d.setServer(ROOT, attr("max_user_queuable", "3"));
    d.submit(ALICE);
    d.submit(ALICE, attr(AttributeNames.DESTINATION, "fast"));
    String third = d.submit(ALICE);
    refused(
        Error.Code.MAX_QUEUED,
        () -> d.submit(ALICE, attr(AttributeNames.DESTINATION, "fast")),
        "Maximum number of jobs already queued for user alice",
        "3 jobs",
        "the server's max_user_queuable = 3");
    d.submit(BOB); // bob has his own count
    d.runToEnd(third, 0); // a completed job no longer counts
    d.submit(ALICE);
  }

  @Test
  void aQueuesLimitCountsOnlyThatQueue() {
    setQueue("fast", "max_user_queuable", "1");
    d.submit(ALICE, attr(AttributeNames.DESTINATION, "fast"));
    refused(
        Error.Code.MAX_USER_QUEUED,
        () -> d.submit(ALICE, attr(AttributeNames.DESTINATION, "fast")),
        "Maximum number of jobs already in queue fast for user alice",
        "the queue's max_user_queuable = 1");
    d.submit(ALICE); // batch has no limit
    d.submit(BOB, attr(AttributeNames.DESTINATION, "fast"));
  }

  @Test
  void anArrayCountsAsItsSubjobs() {
    d.setServer(ROOT, attr("max_user_queuable", "10"));
    d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-8"));
    int events = d.journal.size();
    refused(
        Error.Code.MAX_QUEUED,
        () -> d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3")),
        "8 jobs, this array adds 3",
        "max_user_queuable = 10");
    assertEquals(events, d.journal.size());
    d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    refused(Error.Code.MAX_QUEUED, () -> d.submit(ALICE), "10 jobs");
  }

  @Test
  void maxQueuableCountsEveryonesUnfinishedJobs() {
    setQueue("batch", "max_queuable", "2");
    String first = d.submit(ALICE);
    d.submit(BOB);
    refused(
        Error.Code.MAX_QUEUED,
        () -> d.submit(ALICE),
        "Maximum number of jobs already in queue batch: it holds 2 jobs, max_queuable = 2");
    d.qdel(ALICE, first);
    d.submit(ALICE);
  }

  @Test
  void limitsAreCountsOfZeroOrMore() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("max_user_queuable", "-1")),
        "illegal value for max_user_queuable",
        "unset it for no limit");
    d.setServer(ROOT, attr("max_user_queuable", "0"));
    refused(Error.Code.MAX_QUEUED, () -> d.submit(ALICE), "max_user_queuable = 0");
  }
}
