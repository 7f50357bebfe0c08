package dev.berth.mom.nodejob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Signals;
import dev.berth.mom.Isolation;
import dev.berth.mom.job.Suspension;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.Job;
import dev.berth.proto.JobSuspendReport;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Job 1.srv's suspension on node n1, which has no cgroups: its processes get SIGSTOP and SIGCONT,
 * each change is recorded, and the server hears of it after that.
 */
public class SuspenderTest {
  static final int SIGSTOP = Signals.parse("STOP");
  static final int SIGCONT = Signals.parse("CONT");
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;
  final List<Integer> signals = new ArrayList<>();
  final List<ServerInbound> reports = new ArrayList<>();
  final TestClock clock = new TestClock();
  JobRecords records;

  @BeforeEach
  void recordTheJob() throws IOException {
    records = new JobRecords(dir.resolve("jobs"));
    records.create(RunJob.newBuilder().setJob(Job.newBuilder().setId("1.srv")).build());
  }

  private Suspender suspender(JobRecords records) {
    return new Suspender(
        "1.srv",
        "n1",
        Isolation.none("this test has no cgroups"),
        signals::add,
        records,
        reports::add,
        clock,
        LoggerFactory.getLogger(SuspenderTest.class));
  }

  private static ServerInbound report(boolean suspended) {
    return ServerInbound.newBuilder()
        .setSuspendReport(
            JobSuspendReport.newBuilder().setNode("n1").setJobId("1.srv").setSuspended(suspended))
        .build();
  }

  private Suspension recorded() throws IOException {
    return records.scan().records().get(0).suspension();
  }

  @Test
  void aSuspendStopsTheJobRecordsItAndAnswersAlsoWhenRepeated() throws IOException {
    Suspender s = suspender(records);
    s.order(true);
    assertEquals(List.of(SIGSTOP), signals);
    assertEquals(new Suspension(0, T0), recorded());
    assertEquals(List.of(report(true)), reports);

    clock.millis += 5_000; // the answer was lost: the server asks again
    s.order(true);
    assertEquals(List.of(SIGSTOP, SIGSTOP), signals);
    assertEquals(new Suspension(0, T0), s.state(), "suspended since the first order");
    assertEquals(List.of(report(true), report(true)), reports);
  }

  @Test
  void aResumeContinuesTheJobAndItsWalltimeLeavesTheFrozenTimeOut() throws IOException {
    Suspender s = suspender(records);
    s.order(true);
    clock.millis += 5_000;
    s.order(false);
    assertEquals(List.of(SIGSTOP, SIGCONT), signals);
    assertEquals(new Suspension(5_000, 0), recorded());
    assertEquals(List.of(report(true), report(false)), reports);
    assertEquals(1_000, s.state().ranMillis(T0 - 1_000, clock.millis));

    s.order(false);
    assertEquals(List.of(report(true), report(false), report(false)), reports, "answered again");
  }

  @Test
  void aSuspendedJobThatIsToEndIsContinuedFirst() throws IOException {
    Suspender s = suspender(records);
    s.order(true);
    clock.millis += 3_000;
    s.thawToEnd();
    assertEquals(List.of(SIGSTOP, SIGCONT), signals);
    assertEquals(new Suspension(3_000, 0), recorded());
    assertEquals(List.of(report(true)), reports, "the server hears of the end from the obit");

    s.thawToEnd();
    assertEquals(List.of(SIGSTOP, SIGCONT), signals, "once");
  }

  @Test
  void aJobNeverSuspendedEndsWithoutASignalAndAnEndingOneAnswersNotSuspended() {
    Suspender s = suspender(records);
    s.thawToEnd();
    assertEquals(List.of(), signals);
    s.answerNotRunning();
    assertEquals(List.of(report(false)), reports);
    assertFalse(Files.exists(records.directory("1.srv")), "nothing recorded");
  }

  @Test
  void aSuspensionThatCannotBeRecordedIsUndoneAndLeftUnanswered() throws IOException {
    Path notADirectory = Files.writeString(dir.resolve("records"), "a file");
    Suspender s = suspender(new JobRecords(notADirectory));
    s.order(true);
    assertEquals(List.of(SIGSTOP, SIGCONT), signals);
    assertFalse(s.suspended());
    assertEquals(List.of(), reports, "the server asks again");
  }

  @Test
  void aRestartedMomGoesOnFromWhatItRecorded() {
    Suspender s = suspender(records);
    s.restore(new Suspension(2_000, T0 - 60_000));
    assertTrue(s.suspended());
    s.order(false);
    assertEquals(new Suspension(62_000, 0), s.state());
    assertEquals(List.of(report(false)), reports);
  }

  /** A clock the test moves. */
  public static final class TestClock extends Clock {
    public long millis = T0;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }

    @Override
    public long millis() {
      return millis;
    }
  }
}
