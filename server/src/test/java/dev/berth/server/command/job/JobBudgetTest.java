package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.core.AttributeNames;
import dev.berth.core.Sizes;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Outcome;
import dev.berth.server.testing.Driver;
import dev.berth.server.testing.RefusedCommands;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The memory jobs may take in the server's state: a submission or qalter that would take its user's
 * jobs past {@code user_jobs}, or all jobs past {@code jobs}, is refused whole, saying what the
 * jobs take, what it adds and the limit, and records nothing; everything else about jobs goes on at
 * the limit. Operators and managers are held to {@code jobs} only.
 */
class JobBudgetTest {
  private static final long NONE = Long.MAX_VALUE;
  private static final int SCRIPT = 100_000;

  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private String submit(Caller caller, Attribute... attributes) {
    return submitted(caller, attributes).reply().getSubmitted().getJobId();
  }

  private Outcome submitted(Caller caller, Attribute... attributes) {
    List<Attribute> all = new ArrayList<>();
    all.add(attr(AttributeNames.WORK_DIR, "/home/" + caller.user()));
    all.addAll(List.of(attributes));
    Request.Builder request = Driver.submitRequest(all);
    request.getSubmitBuilder().setScript(ByteString.copyFromUtf8("#".repeat(SCRIPT)));
    return d.client(caller, request);
  }

  private long bytes(String user) {
    return d.state.jobBytes().of(user);
  }

  /** {@code command} is refused with MAX_QUEUED and these words, and records nothing. */
  private void refused(Executable command, String... fragments) {
    int events = d.journal.size();
    long all = d.state.jobBytes().total();
    RefusedCommands.refused(Error.Code.MAX_QUEUED, command, fragments);
    assertEquals(events, d.journal.size(), "a refused command records nothing");
    assertEquals(all, d.state.jobBytes().total());
  }

  @Test
  void aUsersJobsTakeUpToUserJobsAndTheNextSubmissionIsRefused() {
    submit(BOB);
    submit(BOB);
    submit(BOB);
    long three = bytes("bob");
    assertTrue(three > 3 * SCRIPT, three + " bytes: three scripts and three jobs");
    d.budget = new JobBudget(three, NONE); // exactly what they take: still allowed

    refused(
        () -> submit(BOB),
        "Maximum memory for jobs already taken by user bob: " + Sizes.readable(three),
        "this submission adds ",
        "user_jobs = " + Sizes.readable(three),
        "completed jobs kept for keep_completed included");
    submit(ALICE); // alice's jobs are hers
  }

  @Test
  void aUserAtTheLimitCanStillHoldReleaseDeleteAndRunJobs() {
    String queued = submit(BOB);
    String running = submit(BOB);
    d.budget = new JobBudget(bytes("bob") - 1, NONE); // already over: nothing may grow
    d.qhold(BOB, queued, "u");
    d.runToEnd(running, 0); // its start and end are recorded, whatever they add
    assertEquals(JobState.COMPLETED, d.job(running).getState());
    d.qrls(BOB, queued, "u");
    d.qdel(BOB, queued);
    assertEquals(JobState.COMPLETED, d.job(queued).getState());
    refused(() -> submit(BOB), "user bob");
  }

  @Test
  void completedJobsCountUntilTheyArePurged() {
    String done = submit(BOB);
    d.budget = new JobBudget(bytes("bob") + SCRIPT / 2, NONE); // room for less than another
    d.runToEnd(done, 0);
    refused(() -> submit(BOB), "user bob");
    d.advance(3600);
    d.tick(); // keep_completed (300 s) is over: purged
    assertTrue(d.state.job(done).isEmpty());
    assertEquals(0, bytes("bob"));
    submit(BOB);
  }

  @Test
  void anArrayCountsItsSubjobsAndIsRefusedWhole() {
    submit(BOB, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-99"));
    long array = bytes("bob");
    assertTrue(array < SCRIPT + 100 * 2048, array + " bytes: the script once, small subjobs");
    d.budget = new JobBudget(array + SCRIPT + 4096, NONE); // room for a plain job, not an array
    int jobs = d.state.jobCount();
    refused(
        () -> submit(BOB, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-99")),
        "already taken by user bob: " + Sizes.readable(array),
        "this submission adds");
    assertEquals(jobs, d.state.jobCount(), "no subjob of it was made");
    submit(BOB);
  }

  @Test
  void aQalterThatGrowsAJobPastTheLimitIsRefusedAndOneThatShrinksItIsNot() {
    String job = submit(BOB, attr(AttributeNames.JOB_NAME, "a-long-name-to-give-up"));
    d.budget = new JobBudget(bytes("bob") + 1000, NONE);
    refused(
        () -> d.qalter(BOB, job, attr(AttributeNames.VARIABLE_LIST, "BIG=" + "x".repeat(2000))),
        "already taken by user bob",
        "this qalter adds");
    d.qalter(BOB, job, attr(AttributeNames.JOB_NAME, "short"));
    assertEquals("short", d.job(job).getName());
  }

  @Test
  void allJobsTogetherTakeUpToJobsWhoeverAsks() {
    submit(ALICE);
    submit(BOB);
    long all = d.state.jobBytes().total();
    d.setServer(ROOT, attr("acl_roots", "root@head"));
    d.budget = new JobBudget(NONE, all + SCRIPT / 2);
    refused(
        () -> submit(BOB),
        "Maximum memory for jobs already taken: " + Sizes.readable(all),
        "jobs = " + Sizes.readable(all + SCRIPT / 2),
        "the jobs of all users");
    refused(() -> submit(ROOT), "Maximum memory for jobs already taken: ");
  }

  @Test
  void managersAndOperatorsAreNotHeldToOneUsersShare() {
    d.setServer(ROOT, attr("operators", "alice@login1"), attr("acl_roots", "root@head"));
    d.budget = new JobBudget(1, NONE);
    submit(ROOT);
    submit(ROOT);
    submit(ALICE); // an operator
    String bobs = submitAsBobOverTheLimit();
    d.qalter(ALICE, bobs, attr(AttributeNames.VARIABLE_LIST, "MORE=" + "x".repeat(2000)));
    refused(() -> submit(BOB), "user bob");
  }

  /** A job of bob's made while he had room. */
  private String submitAsBobOverTheLimit() {
    JobBudget limit = d.budget;
    d.budget = new JobBudget(NONE, NONE);
    String id = submit(BOB);
    d.budget = limit;
    return id;
  }
}
