package dev.berth.mom.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.mom.job.Suspension;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.RunJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobRecordsTest {
  @TempDir Path dir;

  private static RunJob run(String id) {
    return RunJob.newBuilder()
        .setJob(Job.newBuilder().setId(id).setName("j"))
        .setScript(ByteString.copyFromUtf8("echo hi\n"))
        .setKillDelay(7)
        .build();
  }

  @Test
  void roundTrip() throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("jobs"))));
    RunJob run = run("12[3].srv");
    records.create(run);
    try (var files = Files.list(dir.resolve("jobs"))) {
      assertEquals(
          List.of("12[3].srv.record"),
          files.map(f -> f.getFileName().toString()).toList(),
          "one file, and no directory for a job without tasks");
    }

    JobRecords.Record r = records.scan().records().get(0);
    assertEquals("12[3].srv", r.jobId());
    assertEquals(run, r.run());
    assertTrue(r.process().isEmpty());
    assertTrue(r.status().isEmpty());
    assertTrue(r.obit().isEmpty());

    records.recordProcess("12[3].srv", 4242, 1_700_000_000_123L, 1_700_000_000_100L);
    Files.writeString(records.statusFile("12[3].srv"), "exit 3 10 20\n");
    JobObitReport obit =
        JobObitReport.newBuilder().setJobId("12[3].srv").setExitStatus(3).setNode("n1").build();
    records.recordObit("12[3].srv", obit);

    r = new JobRecords(dir.resolve("jobs")).scan().records().get(0); // as a restarted mom sees it
    assertArrayEquals(
        new long[] {4242, 1_700_000_000_123L, 1_700_000_000_100L}, r.process().orElseThrow());
    assertEquals("exit 3 10 20", r.status().orElseThrow());
    assertEquals(obit, r.obit().orElseThrow());

    Path task = records.newTaskStatusFile("12[3].srv", 2);
    assertEquals(records.directory("12[3].srv"), task.getParent(), "made for the first task");
    records.remove("12[3].srv");
    assertEquals(List.of(), records.scan().records());
    try (var files = Files.list(dir.resolve("jobs"))) {
      assertEquals(List.of("format"), files.map(f -> f.getFileName().toString()).toList());
    }
    records.remove("12[3].srv"); // twice is fine
  }

  @Test
  void aSuspensionIsFoundAgainByARestartedMomAndGoesWithTheJob() throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    records.create(run("1.srv"));
    assertEquals(Suspension.NONE, records.scan().records().get(0).suspension());

    records.recordSuspension("1.srv", new Suspension(0, 1_700_000_000_000L));
    assertEquals(
        new Suspension(0, 1_700_000_000_000L),
        new JobRecords(dir.resolve("jobs")).scan().records().get(0).suspension());
    records.recordSuspension("1.srv", new Suspension(5_000, 0));
    assertEquals(
        new Suspension(5_000, 0), records.scan().records().get(0).suspension(), "replaced");

    Files.writeString(records.directory("1.srv").resolve("suspension"), "5000\n");
    JobRecords.Scan damaged = records.scan();
    assertEquals(List.of(), damaged.records());
    assertTrue(
        damaged.unreadable().get("1.srv").contains("suspension record"),
        damaged.unreadable().toString());

    records.remove("1.srv");
    try (var files = Files.list(dir.resolve("jobs"))) {
      assertEquals(List.of("format"), files.map(f -> f.getFileName().toString()).toList());
    }
  }

  @Test
  void severalJobsAndStrayDirectories() throws IOException {
    JobRecords records = new JobRecords(dir);
    records.create(run("1.srv"));
    records.create(run("2.srv"));
    Files.createDirectories(dir.resolve("not-a-job"));
    Files.writeString(dir.resolve("stray-file"), "x");
    assertEquals(
        List.of("1.srv", "2.srv"),
        records.scan().records().stream().map(JobRecords.Record::jobId).sorted().toList());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", "../etc", "a/b", ".hidden", "/abs"})
  void unsafeIdsAreRefused(String id) throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    assertThrows(IllegalArgumentException.class, () -> records.directory(id));
    assertThrows(IllegalArgumentException.class, () -> records.create(run(id)));
    assertThrows(IllegalArgumentException.class, () -> records.recordProcess(id, 1, 2, 3));
    assertThrows(IllegalArgumentException.class, () -> records.remove(id));
    assertFalse(Files.exists(dir.resolve("etc")));
  }

  @Test
  void aDamagedRecordIsNamedAndLeftInPlaceAndTheOthersStillLoad() throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    records.create(run("1.srv"));
    records.recordProcess("1.srv", 10, 20, 30);
    flipByte(dir.resolve("jobs/1.srv.record"), 12); // in the run request, with more after it
    records.create(run("3.srv"));
    Files.createDirectories(dir.resolve("jobs/2.srv")); // version 2's files, damaged
    Files.write(dir.resolve("jobs/2.srv/run.pb"), new byte[] {(byte) 0xff, 0x01});
    Files.createDirectories(dir.resolve("jobs/4.srv"));
    Files.write(dir.resolve("jobs/4.srv/run.pb"), run("4.srv").toByteArray());
    Files.writeString(dir.resolve("jobs/4.srv/process"), "10 20\n"); // an older, shorter layout
    Files.createDirectories(dir.resolve("jobs/5.srv"));
    Files.writeString(dir.resolve("jobs/5.srv/process"), "10 20 30\n"); // its run request lost
    JobRecords.Scan scan = records.scan();
    assertEquals(List.of("3.srv"), scan.records().stream().map(JobRecords.Record::jobId).toList());
    assertEquals(Set.of("1.srv", "2.srv", "4.srv", "5.srv"), scan.unreadable().keySet());
    assertTrue(
        scan.unreadable().get("1.srv").contains("checksum mismatch"), scan.unreadable().toString());
    assertTrue(
        scan.unreadable().get("2.srv").contains("Protocol message"), scan.unreadable().toString());
    assertTrue(scan.unreadable().get("4.srv").contains("malformed"), scan.unreadable().toString());
    assertEquals(
        scan.unreadable(),
        records.scan().unreadable(),
        "left where they are: the next start finds them again");
  }

  @Test
  void aRecordThatDoesNotBeginWithItsRunRequestIsDamaged() throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    records.create(run("1.srv"));
    records.recordProcess("1.srv", 10, 20, 30);
    Path file = dir.resolve("jobs/1.srv.record");
    byte[] bytes = Files.readAllBytes(file);
    int run = 8 + java.nio.ByteBuffer.wrap(bytes).getInt();
    Files.write(file, java.util.Arrays.copyOfRange(bytes, run, bytes.length)); // the process only
    assertTrue(
        records.scan().unreadable().get("1.srv").contains("does not begin with the run request"));
  }

  @Test
  void aCrashCutsOnlyTheLastEntryShortAndWhatFollowsStartsAfterTheWholeOnes() throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    records.create(run("1.srv"));
    Path file = dir.resolve("jobs/1.srv.record");
    long whole = Files.size(file);
    records.recordProcess("1.srv", 10, 20, 30);
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 3)); // the process, cut short

    JobRecords.Record r = records.scan().records().get(0);
    assertEquals(run("1.srv"), r.run());
    assertTrue(r.process().isEmpty());
    assertEquals(whole, Files.size(file), "the half-written entry is gone");
    JobObitReport obit = JobObitReport.newBuilder().setJobId("1.srv").setExitStatus(1).build();
    records.recordObit("1.srv", obit);
    assertEquals(obit, records.scan().records().get(0).obit().orElseThrow());

    Files.write(file, new byte[16], java.nio.file.StandardOpenOption.APPEND); // zeros, never synced
    assertEquals(obit, records.scan().records().get(0).obit().orElseThrow());
    assertEquals(Map.of(), records.scan().unreadable());
  }

  @Test
  void aJobDirectoryWithoutARecordOrARecordCutShortIsNoRecord() throws IOException {
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    Files.createDirectories(dir.resolve("jobs/5.srv"));
    Files.writeString(dir.resolve("jobs/5.srv/task-2"), "10 20\n");
    records.create(run("6.srv"));
    Path file = dir.resolve("jobs/6.srv.record");
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, 20)); // its run request cut short
    JobRecords.Scan scan = records.scan();
    assertEquals(List.of(), scan.records());
    assertEquals(Map.of(), scan.unreadable());
  }

  @Test
  void aRecordInVersion2sFilesIsReadAndRewrittenAsOneRecord() throws IOException {
    Path job = Files.createDirectories(dir.resolve("jobs/7.srv"));
    Files.writeString(dir.resolve("jobs/format"), "2\n");
    Files.write(job.resolve("run.pb"), run("7.srv").toByteArray());
    Files.writeString(job.resolve("script"), "echo hi\n");
    Files.writeString(job.resolve("process"), "10 20 30\n");
    Files.writeString(job.resolve("sister"), "n0\n");
    Files.writeString(job.resolve("status"), "exit 0 1 2\n");
    JobRecords records = new JobRecords(dir.resolve("jobs"));

    JobRecords.Record before = records.scan().records().get(0);
    try (var files = Files.list(job)) {
      assertEquals(
          List.of("status"),
          files.map(f -> f.getFileName().toString()).toList(),
          "its starter still reports here");
    }
    assertTrue(Files.exists(dir.resolve("jobs/7.srv.record")));
    assertEquals(
        List.of(before.jobId()),
        records.scan().records().stream().map(JobRecords.Record::jobId).toList(),
        "found once");
    assertEquals("3\n", Files.readString(dir.resolve("jobs/format")));
    records.recordObit("7.srv", JobObitReport.newBuilder().setJobId("7.srv").build());
    JobRecords.Record after = records.scan().records().get(0);
    assertEquals(run("7.srv"), after.run());
    assertArrayEquals(before.process().orElseThrow(), after.process().orElseThrow());
    assertEquals(Optional.of("n0"), after.motherSuperior());
    assertEquals(Optional.of("exit 0 1 2"), after.status());
    assertTrue(after.obit().isPresent());
  }

  private static void flipByte(Path file, int at) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[at] ^= 0x55;
    Files.write(file, bytes);
  }

  @Test
  void recordsThatAreNoDirectoryCannotBeScannedButOpen() throws IOException {
    Files.writeString(dir.resolve("jobs"), "not a directory");
    JobRecords records = new JobRecords(dir.resolve("jobs"));
    IOException e = assertThrows(IOException.class, records::scan);
    assertTrue(JobRecords.describe(e).startsWith("NotDirectoryException"), JobRecords.describe(e));
  }
}
