package dev.berth.server.query;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.JobHistory;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatJobs;
import dev.berth.proto.TraceJob;
import dev.berth.server.command.Caller;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.testing.Driver;
import dev.berth.server.testing.WorstCaseArray;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every reply has a budget (the client limit {@code reply}; 64 MiB for a 2 GiB heap): qstat -f -t
 * of the worst-case array, 2.2 GB whole, is refused with a message that says what to ask instead,
 * while what qstat's tables ask for of it fits; a job's history that would not fit is refused to
 * those who may see the job.
 */
class ReplyBudgetTest {
  private static final ReplyBudget BUDGET = new ReplyBudget(64 << 20);

  @TempDir Path dir;
  private Driver d;
  private RocksJournal journal;
  private Queries queries;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    journal = RocksJournal.open(dir.resolve("journal"));
    queries =
        new Queries(
            Driver.SERVER,
            journal,
            new NodeTelemetry(),
            Clock.fixed(Instant.ofEpochSecond(d.nowSeconds()), ZoneOffset.UTC),
            Optional::empty,
            BUDGET,
            null,
            ZoneOffset.UTC);
  }

  @AfterEach
  void close() {
    journal.close();
  }

  @Test
  void qstatOfTheWorstCaseArrayWithItsSubjobsIsRefusedAndWhatTheTablesNeedIsAnswered() {
    String array = WorstCaseArray.submit(d, BOB);
    Response full = stat(BOB, StatJobs.newBuilder().addJobIds(array).setIncludeSubjobs(true));
    assertEquals(Error.Code.SYSTEM, full.getError().getCode(), full.toString());
    assertEquals(
        "the reply about 1[].srv would be larger than 64 MiB, the most the server sends at once;"
            + " ask for fewer jobs at a time, or without -t or -f",
        full.getError().getMessage());

    Response table =
        stat(BOB, StatJobs.newBuilder().addJobIds(array).setIncludeSubjobs(true).setBrief(true));
    assertEquals(WorstCaseArray.SUBJOBS + 1, table.getJobs().getJobsCount(), "qstat -t");
    assertTrue(table.getSerializedSize() < 8 << 20, table.getSerializedSize() + " bytes");
    assertEquals(0, table.getJobs().getJobs(1).getVariablesCount(), "no environment");

    Response parent = stat(BOB, StatJobs.newBuilder().addJobIds(array));
    assertEquals(1, parent.getJobs().getJobsCount(), "qstat -f of the array alone");
    assertTrue(parent.getJobs().getJobs(0).getVariablesCount() >= 4, "the environment");
    assertSame(
        d.state.job(array).orElseThrow(), parent.getJobs().getJobs(0), "the state's, not a copy");

    Response all = stat(BOB, StatJobs.newBuilder().setIncludeSubjobs(true));
    assertEquals(
        "the reply would be larger than 64 MiB, the most the server sends at once; ask for fewer"
            + " jobs at a time, or without -t or -f",
        all.getError().getMessage());
    assertEquals(0, stat(ALICE, StatJobs.newBuilder()).getJobs().getJobsCount(), "bob's jobs");
  }

  @Test
  void aHistoryTooLargeToSendIsRefusedToThoseWhoMaySeeTheJob() throws Exception {
    Attribute[] big = WorstCaseArray.attributes(1).subList(1, 5).toArray(Attribute[]::new);
    String job = d.submit(BOB, big);
    for (int i = 0; i < 300; i++) { // each alter records the whole job: 300 x 225 KB
      d.qalter(BOB, job, attr(AttributeNames.JOB_NAME, "n" + i));
    }
    journal.append(d.journal).get(60, TimeUnit.SECONDS);
    Response own = trace(BOB, job);
    assertEquals(
        "the history of 1.srv would be larger than 64 MiB, the most the server sends at once",
        own.getError().getMessage());
    assertEquals(Error.Code.UNKNOWN_JOB, trace(ALICE, job).getError().getCode(), "not alice's");
  }

  /**
   * qstat -H stops reading the accounting files once its reply would be too large, so that what one
   * request holds is bounded by the reply's budget, not by the history the site keeps.
   */
  @Test
  void aHistoryOfFinishedJobsTooLargeToSendIsRefusedAndWhatFitsIsAnswered() throws Exception {
    Path accounting = Files.createDirectories(dir.resolve("accounting"));
    StringBuilder records = new StringBuilder();
    for (int i = 1; i <= 1000; i++) {
      records.append(
          "12/03/2026 10:15:09;E;"
              + i
              + ".srv;user=bob group=users jobname=j queue=batch ctime=1 qtime=1 etime=1 start=2"
              + " owner=bob@login1 exec_host=n1/0 end=3 Exit_status=0 resources_used.cput=1"
              + " resources_used.mem=2104kb resources_used.vmem=0kb"
              + " resources_used.walltime=00:00:01\n");
    }
    LocalDate today = LocalDate.ofInstant(Instant.ofEpochSecond(d.nowSeconds()), ZoneOffset.UTC);
    Files.writeString(
        accounting.resolve(today.format(DateTimeFormatter.BASIC_ISO_DATE)), records.toString());
    Request everything =
        Request.newBuilder().setJobHistory(JobHistory.getDefaultInstance()).build();

    Response refused =
        history(new ReplyBudget(10 << 10), accounting).answer(d.state, BOB, everything).build();
    assertEquals(
        "the history asked for would be larger than 10 KiB, the most the server sends at once;"
            + " ask for fewer days, users or jobs",
        refused.getError().getMessage());
    Response all = history(BUDGET, accounting).answer(d.state, BOB, everything).build();
    assertEquals(1000, all.getJobs().getJobsCount(), all.getError().getMessage());
  }

  private Queries history(ReplyBudget budget, Path accounting) {
    return new Queries(
        Driver.SERVER,
        journal,
        new NodeTelemetry(),
        Clock.fixed(Instant.ofEpochSecond(d.nowSeconds()), ZoneOffset.UTC),
        Optional::empty,
        budget,
        accounting,
        ZoneOffset.UTC);
  }

  @Test
  void anyOtherReplyLargerThanTheBudgetIsRefusedInItsPlace() {
    Response small = Response.newBuilder().setId(7).build();
    assertSame(small, BUDGET.bound(small, "the reply to stat_server", "ask for less"));
    Response large =
        Response.newBuilder()
            .setId(7)
            .setServer(ServerStatus.newBuilder().putAttributes("comment", "x".repeat(200)))
            .build();
    Response refused =
        new ReplyBudget(100).bound(large, "the reply to stat_server", "ask for less at a time");
    assertEquals(7, refused.getId());
    assertEquals(
        "the reply to stat_server would be larger than 100 bytes, the most the server sends at"
            + " once; ask for less at a time",
        refused.getError().getMessage());
  }

  private Response stat(Caller caller, StatJobs.Builder q) {
    return queries.answer(d.state, caller, Request.newBuilder().setStatJobs(q).build()).build();
  }

  private Response trace(Caller caller, String id) {
    return queries
        .answer(
            d.state,
            caller,
            Request.newBuilder().setTraceJob(TraceJob.newBuilder().setJobId(id)).build())
        .build();
  }
}
