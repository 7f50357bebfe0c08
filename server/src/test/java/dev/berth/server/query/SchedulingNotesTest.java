package dev.berth.server.query;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.berth.proto.Job;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.SchedulingPriority;
import dev.berth.proto.StatJobs;
import dev.berth.scheduler.Plan;
import dev.berth.server.command.Caller;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.testing.Driver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backfill on the server's own state, from submission to what qstat shows: n1 and n2 of 4 CPUs;
 * alice's first job holds 3 CPUs of n1 for 10 minutes and her second all of n2 for an hour.
 */
class SchedulingNotesTest {
  @TempDir Path dir;
  private Driver d;
  private RocksJournal journal;
  private Queries queries;
  private final AtomicReference<Plan> lastPlan = new AtomicReference<>();
  private long t0;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
    journal = RocksJournal.open(dir.resolve("journal"));
    Clock clock =
        new Clock() {
          @Override
          public ZoneId getZone() {
            return ZoneId.of("UTC");
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return Instant.ofEpochMilli(d.nowMillis);
          }
        };
    queries =
        new Queries(
            Driver.SERVER,
            journal,
            new NodeTelemetry(),
            clock,
            () -> Optional.ofNullable(lastPlan.get()),
            new ReplyBudget(64 << 20),
            null,
            java.time.ZoneOffset.UTC);
    t0 = d.nowSeconds();
    running(submit(ALICE, "1:ppn=3", "00:10:00"));
    d.advance(60);
    running(submit(ALICE, "1:ppn=4", "01:00:00"));
  }

  @AfterEach
  void close() {
    journal.close();
  }

  private String submit(Caller who, String nodes, String walltime) {
    return d.submit(who, resource("nodes", nodes), resource("walltime", walltime));
  }

  private void running(String id) {
    assertEquals(List.of(id), schedule());
    d.started(id);
  }

  private List<String> schedule() {
    Plan plan = d.plan();
    lastPlan.set(plan);
    return d.schedule(plan);
  }

  private Job qstat(String id) {
    return queries
        .answer(
            d.state,
            ROOT,
            Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(id)).build())
        .build()
        .getJobs()
        .getJobs(0);
  }

  @Test
  void aWideJobIsReservedAndOnlyJobsThatEndBeforeItStart() {
    String wide = submit(BOB, "2:ppn=4", "00:30:00");
    String long_ = submit(BOB, "1:ppn=1", "02:00:00");
    String short_ = submit(BOB, "1:ppn=1", "00:05:00");
    assertEquals(List.of(short_), schedule());
    d.started(short_);

    // wide needs both nodes whole: n2 is free when alice's second job's hour is up
    Job w = qstat(wide);
    assertEquals("Not Running: not enough free resources; its start is reserved", w.getComment());
    assertEquals(t0 + 60 + 3600, w.getEstimatedStartTime());
    Job l = qstat(long_);
    assertEquals(
        "Not Running: it would delay the reserved start of a job of higher priority",
        l.getComment());
    assertEquals(0, l.getEstimatedStartTime());
    assertFalse(qstat(short_).hasSchedPriority(), "a running job has no scheduling notes");
  }

  /**
   * A running job without a walltime is planned to end at its estimate (else the job after it could
   * not be reserved a start at all), renewed when it outruns it, and qstat says which.
   */
  @Test
  void aRunningJobWithoutAWalltimeIsPlannedWithAnEstimateSoTheNextIsReserved() {
    String open = d.submit(ALICE, resource("nodes", "1:ppn=1")); // n1's last CPU, no walltime
    running(open);
    Job o = qstat(open);
    assertEquals(3600, o.getPlannedWalltime());
    assertEquals("the server's estimate for jobs without one", o.getPlannedWalltimeSource());
    String whole = submit(BOB, "1:ppn=4", "00:30:00");
    assertEquals(List.of(), schedule());
    assertEquals(t0 + 60 + 3600, qstat(whole).getEstimatedStartTime(), "n1 or n2, an hour on");

    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        Driver.op("resources_max", "walltime", dev.berth.proto.Attribute.Op.SET, "00:20:00"));
    assertEquals(List.of(), schedule());
    assertEquals(
        t0 + 60 + 1200, qstat(whole).getEstimatedStartTime(), "n1, once its 20 minutes are up");
    assertEquals("resources_max.walltime of queue batch", qstat(open).getPlannedWalltimeSource());

    d.advance(1500); // the open job has outrun its estimate; alice's first job is over its time
    assertEquals(List.of(), schedule());
    assertEquals(t0 + 60 + 2400, qstat(whole).getEstimatedStartTime(), "one estimate more");
    assertEquals(0, qstat(whole).getPlannedWalltime(), "a job with a walltime has no estimate");
  }

  @Test
  void priorityAndItsPartsFollowTheWeights() {
    String job = submit(BOB, "2:ppn=4", "00:30:00");
    assertEquals(
        SchedulingPriority.newBuilder().setTotal(500).setUser(500).build(),
        qstat(job).getSchedPriority());
    d.setServer(
        ROOT,
        attr("priority_weight_age", "1000"),
        attr("priority_max_age", "1:00:00"),
        attr("priority_weight_job_size", "100"));
    d.advance(900);
    assertEquals(
        SchedulingPriority.newBuilder()
            .setTotal(250 + 100 + 500)
            .setAge(250)
            .setJobSize(100)
            .setUser(500)
            .build(),
        qstat(job).getSchedPriority());
  }

  @Test
  void jobsThatCannotBeConsideredSayWhy() {
    String job = submit(BOB, "1:ppn=1", "00:05:00");
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("started", "False"));
    assertEquals("Not Running: queue batch is stopped", qstat(job).getComment());
    d.setServer(ROOT, attr("scheduling", "False"));
    assertEquals(
        "Not Running: scheduling is off (qmgr: scheduling = False)", qstat(job).getComment());
  }
}
