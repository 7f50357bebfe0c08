package dev.berth.server.query;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatFairShare;
import dev.berth.proto.StatJobs;
import dev.berth.proto.StatNodes;
import dev.berth.proto.TraceJob;
import dev.berth.server.command.Caller;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.testing.Driver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** qstat, pbsnodes and tracejob: who sees which jobs. */
class QueriesTest {
  private static final long REPLY_BYTES = 64 << 20;

  @TempDir Path dir;

  private Driver d;
  private RocksJournal journal;
  private Queries queries;
  private final NodeTelemetry telemetry = new NodeTelemetry();
  private String alices;
  private String bobs;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    alices = d.submit(ALICE);
    bobs = d.submit(BOB);
    journal = RocksJournal.open(dir.resolve("journal"));
    queries =
        new Queries(
            Driver.SERVER,
            journal,
            telemetry,
            Clock.fixed(Instant.ofEpochSecond(d.nowSeconds()), ZoneOffset.UTC),
            Optional::empty,
            new ReplyBudget(REPLY_BYTES),
            null,
            ZoneOffset.UTC);
  }

  @AfterEach
  void close() {
    journal.close();
  }

  private void persist() throws Exception {
    journal
        .append(d.journal.subList((int) journal.lastSeq(), d.journal.size()))
        .get(10, TimeUnit.SECONDS);
  }

  private Response ask(Caller caller, Request.Builder request) {
    return queries.answer(d.state, caller, request.build()).build();
  }

  private List<String> qstat(Caller caller, String... ids) {
    Response r =
        ask(
            caller,
            Request.newBuilder().setStatJobs(StatJobs.newBuilder().addAllJobIds(List.of(ids))));
    assertTrue(r.hasJobs(), r.toString());
    return r.getJobs().getJobsList().stream().map(Job::getId).toList();
  }

  private Response trace(Caller caller, String id) {
    return ask(caller, Request.newBuilder().setTraceJob(TraceJob.newBuilder().setJobId(id)));
  }

  private List<String> usageLines(Caller caller, String... users) {
    Response r =
        ask(
            caller,
            Request.newBuilder()
                .setStatFairShare(StatFairShare.newBuilder().addAllUsers(List.of(users))));
    assertTrue(r.hasFairShare(), r.toString());
    List<String> lines = new ArrayList<>();
    r.getFairShare().getAccountsList().forEach(e -> lines.add("account " + e.getName()));
    r.getFairShare()
        .getUsersList()
        .forEach(e -> lines.add("user " + e.getName() + " " + Math.round(e.getRawUsage())));
    return lines;
  }

  @Test
  void aJobHeldForItsDependenciesSaysWhichItWaitsFor() {
    String waiting =
        d.submit(ALICE, Driver.attr(AttributeNames.DEPEND, "afterok:" + alices + ":" + bobs));
    Response r =
        ask(ALICE, Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(waiting)));
    Job shown = r.getJobs().getJobs(0);
    assertEquals(JobState.HELD, shown.getState());
    assertEquals(
        "Not Running: waiting for its dependencies afterok:" + alices + ",afterok:" + bobs,
        shown.getComment());
    assertEquals("", d.job(waiting).getComment(), "derived for qstat, not state");
  }

  @Test
  void usersSeeTheirOwnFairShareUsageUnlessQueryOtherJobsIsOn() {
    d.schedule();
    d.started(alices);
    d.started(bobs);
    d.advance(100);
    d.obit(alices, 0);
    d.obit(bobs, 0);
    assertEquals(List.of("user alice 100"), usageLines(ALICE));
    assertEquals(List.of(), usageLines(ALICE, "bob"), "another user's usage is not shown");
    assertEquals(List.of("account users", "user alice 100", "user bob 100"), usageLines(ROOT));
    d.setServer(ROOT, attr("query_other_jobs", "True"));
    assertEquals(List.of("user bob 100"), usageLines(ALICE, "bob"));
  }

  @Test
  void usersSeeTheirOwnJobsUnlessQueryOtherJobsIsOn() {
    assertEquals(List.of(alices), qstat(ALICE));
    assertEquals(List.of(bobs), qstat(BOB));
    assertEquals(List.of(alices, bobs), qstat(ROOT));
    Response hidden =
        ask(BOB, Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(alices)));
    assertEquals(Error.Code.UNKNOWN_JOB, hidden.getError().getCode());
    assertEquals("Unknown Job Id " + alices, hidden.getError().getMessage());
    Response missing =
        ask(BOB, Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds("99")));
    assertEquals(hidden.getError().getCode(), missing.getError().getCode(), "hidden = unknown");

    d.setServer(ROOT, attr("query_other_jobs", "true"));
    assertEquals(List.of(alices, bobs), qstat(BOB));
    assertEquals(List.of(alices), qstat(BOB, alices));
  }

  @Test
  void operatorsSeeEveryJob() {
    d.setServer(ROOT, attr("operators", "olga@*"));
    assertEquals(List.of(alices, bobs), qstat(new Caller("olga", "staff", "login9")));
  }

  @Test
  void subjobsShowOnlyWhenAsked() {
    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    String n = array.substring(0, array.indexOf('['));
    assertEquals(List.of(alices, array), qstat(ALICE));
    Response r =
        ask(
            ALICE,
            Request.newBuilder()
                .setStatJobs(StatJobs.newBuilder().addJobIds(array).setIncludeSubjobs(true)));
    assertEquals(
        List.of(array, n + "[1].srv", n + "[2].srv"),
        r.getJobs().getJobsList().stream().map(Job::getId).toList());
  }

  @Test
  void tracejobFollowsTheJobAfterItIsPurgedForItsOwnerAndOperatorsOnly() throws Exception {
    d.runToEnd(alices, 0);
    d.advance(301);
    d.tick();
    assertTrue(d.state.job(alices).isEmpty(), "purged");
    persist();

    Response own = trace(ALICE, alices);
    assertTrue(own.hasTrace(), own.toString());
    assertEquals(
        List.of(
            Event.BodyCase.JOB_SUBMITTED,
            Event.BodyCase.JOB_DISPATCHED,
            Event.BodyCase.JOB_STARTED,
            Event.BodyCase.JOB_EXITED,
            Event.BodyCase.JOB_PURGED),
        own.getTrace().getEventsList().stream().map(Event::getBodyCase).toList());
    assertTrue(trace(ROOT, alices).hasTrace());
    assertEquals(Error.Code.UNKNOWN_JOB, trace(BOB, alices).getError().getCode());
    assertEquals(Error.Code.UNKNOWN_JOB, trace(ALICE, "77").getError().getCode());
  }

  private List<String> nodeJobs(Caller caller) {
    Response r = ask(caller, Request.newBuilder().setStatNodes(StatNodes.newBuilder()));
    var n1 = r.getNodes().getNodes(0);
    assertEquals("n1", n1.getNode().getName());
    assertEquals("free", n1.getState());
    List<String> slots = n1.getJobsList().stream().map(s -> s.getJobId()).toList();
    assertEquals(
        String.join(" ", slots),
        n1.getNode().getStatusOrThrow("jobs").replace(" stale.srv", ""),
        "the mom's jobs item shows the same jobs");
    return slots;
  }

  @Test
  void nodesShowTheJobsOnTheirCpusThatQstatWouldShow() {
    d.schedule();
    telemetry.record(
        "n1", java.util.Map.of("jobs", alices + " " + bobs + " stale.srv"), d.nowSeconds());
    assertEquals(List.of(alices), nodeJobs(ALICE), "bob's job is hidden as in qstat");
    assertEquals(List.of(bobs), nodeJobs(BOB));
    assertEquals(List.of(alices, bobs), nodeJobs(ROOT));
    assertEquals(
        alices + " " + bobs + " stale.srv",
        ask(ROOT, Request.newBuilder().setStatNodes(StatNodes.newBuilder()))
            .getNodes()
            .getNodes(0)
            .getNode()
            .getStatusOrThrow("jobs"),
        "a job the server does not know only those who see every job see");
    d.setServer(ROOT, attr("query_other_jobs", "True"));
    assertEquals(List.of(alices, bobs), nodeJobs(ALICE));
    Response unknown =
        ask(ALICE, Request.newBuilder().setStatNodes(StatNodes.newBuilder().addNames("n7")));
    assertEquals(Error.Code.UNKNOWN_NODE, unknown.getError().getCode());
  }

  private Job stat(Caller caller, String id, boolean subjobs) {
    Response r =
        ask(
            caller,
            Request.newBuilder()
                .setStatJobs(StatJobs.newBuilder().addJobIds(id).setIncludeSubjobs(subjobs)));
    return r.getJobs().getJobs(r.getJobs().getJobsCount() - 1);
  }

  private static boolean hasSecret(Job job) {
    return job.getVariablesList().stream().anyMatch(v -> v.getName().equals("TOKEN"));
  }

  @Test
  void anotherUsersEnvironmentIsNeverShownEvenWhereTheJobIs() throws Exception {
    String secret =
        d.submit(
            ALICE,
            attr(AttributeNames.VARIABLE_LIST, "TOKEN=s3cr3t"),
            attr(AttributeNames.SUBMIT_ARGS, "-v TOKEN=s3cr3t job.sh"));
    String array =
        d.submit(
            ALICE,
            attr(AttributeNames.VARIABLE_LIST, "TOKEN=s3cr3t"),
            attr(AttributeNames.JOB_ARRAY_REQUEST, "1-2"));
    d.setServer(ROOT, attr("query_other_jobs", "true"));
    d.setServer(ROOT, attr("operators", "olga@*"));
    assertTrue(hasSecret(stat(ALICE, secret, false)), "the owner sees it");
    assertTrue(hasSecret(stat(ROOT, secret, false)), "a manager sees it");
    assertTrue(hasSecret(stat(new Caller("olga", "staff", "x"), secret, false)), "an operator");
    Job seen = stat(BOB, secret, false);
    assertEquals(secret, seen.getId(), "bob may see the job");
    assertEquals(0, seen.getVariablesCount(), "but not its Variable_List");
    assertEquals("", seen.getSubmitArgs(), "nor qsub's command line, which repeats -v");
    assertEquals(0, stat(BOB, array, true).getVariablesCount(), "nor a subjob's");
    Response all = ask(BOB, Request.newBuilder().setStatJobs(StatJobs.newBuilder()));
    assertTrue(
        all.getJobs().getJobsList().stream()
            .filter(j -> !j.getEuser().equals("bob"))
            .allMatch(j -> j.getVariablesCount() == 0),
        all.toString());

    d.qalter(ALICE, secret, attr(AttributeNames.JOB_NAME, "renamed"));
    persist();
    for (Event e : trace(BOB, secret).getTrace().getEventsList()) {
      assertFalse(e.toString().contains("s3cr3t"), "bob's tracejob: " + e);
    }
    String owners = trace(ALICE, secret).getTrace().toString();
    assertTrue(owners.contains("s3cr3t"), "the owner's tracejob keeps it");
  }

  @Test
  void noReplyCarriesAJobScript() throws Exception {
    persist();
    for (Caller caller : List.of(ALICE, ROOT)) {
      Event submitted = trace(caller, alices).getTrace().getEvents(0);
      assertTrue(submitted.hasJobSubmitted());
      assertTrue(submitted.getJobSubmitted().getScript().isEmpty(), caller.toString());
    }
  }
}
