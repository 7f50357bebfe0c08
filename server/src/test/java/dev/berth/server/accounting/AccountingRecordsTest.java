package dev.berth.server.accounting;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.AccountingReply;
import dev.berth.proto.AccountingRequest;
import dev.berth.proto.Event;
import dev.berth.proto.Manage;
import dev.berth.proto.MoveJob;
import dev.berth.proto.Request;
import dev.berth.proto.RerunJob;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccountingRecordsTest {
  private static final ZoneId UTC = ZoneId.of("UTC");
  private final Driver d = Driver.withTwoNodes();

  /** Every record the journal makes so far, replayed as the server and berth accounting do. */
  private List<AccountingRecord> records() {
    List<AccountingRecord> all = new ArrayList<>();
    ClusterState s = ClusterState.EMPTY;
    for (Event e : d.journal) {
      ClusterState next = StateMachine.apply(s, e);
      all.addAll(AccountingRecords.of(s, e, next));
      s = next;
    }
    return all;
  }

  private List<AccountingRecord> of(String id) {
    return records().stream().filter(r -> r.jobId().equals(id)).toList();
  }

  private static String types(List<AccountingRecord> records) {
    return records.stream().map(r -> String.valueOf(r.type())).collect(Collectors.joining());
  }

  @Test
  void aJobThatRanIsQueuedStartedAndEndedInTorquesFields() {
    String id =
        d.submit(
            ALICE,
            attr(AttributeNames.ACCOUNT_NAME, "proj 7"),
            attr(AttributeNames.JOB_NAME, "train"),
            resource("nodes", "1:ppn=2"),
            resource("walltime", "1:00:00"));
    d.schedule();
    d.started(id);
    d.advance(60);
    d.obit(id, 3);
    List<AccountingRecord> r = of(id);
    assertEquals("QSE", types(r));
    assertEquals(List.of("queue=batch"), r.get(0).attributes());
    String node = d.motherSuperior(id);
    long ctime = d.job(id).getCtime();
    long start = d.job(id).getStartTime();
    List<String> common =
        List.of(
            "user=alice",
            "group=users",
            "account=proj_7", // a space would let a value pose as another attribute
            "jobname=train",
            "queue=batch",
            "ctime=" + ctime,
            "qtime=" + d.job(id).getQtime(),
            "etime=" + d.job(id).getEtime(),
            "start_count=1",
            "start=" + start,
            "owner=alice@login1",
            "exec_host=" + node + "/0-1");
    assertEquals(common, r.get(1).attributes().subList(0, common.size()));
    assertTrue(r.get(1).attributes().contains("Resource_List.nodes=1:ppn=2"), r.get(1).toString());
    assertTrue(r.get(1).attributes().contains("Resource_List.walltime=01:00:00"));
    List<String> e = r.get(2).attributes();
    assertEquals(common, e.subList(0, common.size()));
    int end = e.indexOf("Exit_status=3");
    assertEquals(
        List.of(
            "session=" + d.job(id).getSessionId(),
            "total_execution_slots=2",
            "unique_node_count=1",
            "end=" + d.job(id).getCompTime(),
            "Exit_status=3",
            "resources_used.cput=3",
            "resources_used.mem=0kb",
            "resources_used.vmem=0kb",
            "resources_used.walltime=00:00:05"),
        e.subList(end - 4, e.size()));
  }

  @Test
  void aDeletedJobHasDWithItsRequestorAndEOnlyIfItRan() {
    String queued = d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"));
    d.qdel(ALICE, queued);
    assertEquals("QD", types(of(queued)));
    assertEquals(List.of("requestor=alice@login1"), of(queued).get(1).attributes());

    String running = d.submit(BOB);
    d.schedule();
    d.started(running);
    d.qdel(ROOT, running);
    d.obit(running, 271);
    assertEquals("QSDE", types(of(running)));
    assertEquals(List.of("requestor=root@head"), of(running).get(2).attributes());
    assertTrue(of(running).get(3).attributes().contains("Exit_status=271"));
  }

  @Test
  void aJobThatCouldNotStartIsAbortedAndARequeuedOneRerun() {
    String failed = d.submit(ALICE);
    d.schedule();
    d.obit(failed, -1); // the mother superior could not start it: no S
    assertEquals("QA", types(of(failed)));
    assertEquals(List.of(), of(failed).get(1).attributes());
  }

  @Test
  void aMovedJobIsQueuedInItsNewQueueAndARerunOneIsNoDelete() {
    d.qmgr(ROOT, Manage.Command.CREATE, Manage.ObjectType.QUEUE, List.of("long"));
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("long"),
        attr("queue_type", "execution"),
        attr("enabled", "True"),
        attr("started", "True"));
    String id = d.submit(ALICE);
    d.client(
        ALICE,
        Request.newBuilder().setMove(MoveJob.newBuilder().setJobId(id).setDestination("long")));
    assertEquals("QQ", types(of(id)));
    assertTrue(of(id).get(1).line(UTC).endsWith(";Q;" + id + ";queue=long\n"));

    d.schedule();
    d.started(id);
    d.client(ROOT, Request.newBuilder().setRerun(RerunJob.newBuilder().setJobId(id)));
    d.obit(id, 271);
    assertEquals("QQSR", types(of(id)), "a rerun is R, not D");
  }

  @Test
  void eachSubjobOfAnArrayIsQueuedOnItsOwn() {
    String array = d.submit(ALICE, attr(AttributeNames.JOB_ARRAY_REQUEST, "0-2"));
    List<AccountingRecord> r = records();
    assertEquals(
        List.of(array.replace("[]", "[0]"), array.replace("[]", "[1]"), array.replace("[]", "[2]")),
        r.stream().filter(x -> x.type() == 'Q').map(AccountingRecord::jobId).toList());
  }

  @Test
  void aTaskOfAnSbatchArrayRecordsItsOwnJobNumber() {
    String array =
        d.submit(
            ALICE,
            attr(AttributeNames.JOB_ARRAY_REQUEST, "3-4"),
            attr(AttributeNames.SUBMIT_STYLE, AttributeNames.SBATCH));
    long number = d.job(array).getNumber();
    String second = array.replace("[]", "[4]");
    d.schedule();
    d.runToEnd(second, 0);
    List<AccountingRecord> ended = of(second).stream().filter(r -> r.type() == 'E').toList();
    assertEquals(1, ended.size());
    assertTrue(
        ended.get(0).attributes().contains("task_number=" + (number + 1)),
        ended.get(0).attributes().toString());
  }

  @Test
  void aLineIsTorquesAndItsFileTheLocalDay() {
    AccountingRecord r =
        new AccountingRecord(1_764_756_000_000L, 'D', "12.srv", List.of("requestor=alice@h"));
    assertEquals("12/03/2025 10:00:00;D;12.srv;requestor=alice@h\n", r.line(UTC));
    assertEquals("20251203", r.file(UTC));
    assertEquals("20251203", r.file(ZoneId.of("Pacific/Auckland")).substring(0, 8)); // 23:00
    assertEquals(
        "20251204",
        new AccountingRecord(1_764_756_000_000L + 3_600_000, 'D', "12.srv", List.of())
            .file(ZoneId.of("Pacific/Auckland")),
        "a day is the server's local day");
    assertEquals(
        "12/03/2025 10:00:00;A;12.srv;\n",
        new AccountingRecord(1_764_756_000_000L, 'A', "12.srv", List.of()).line(UTC));
  }

  @Test
  void aLineCutOffByAFullDiskGetsItsNewlineBeforeTheNextRecord(@TempDir Path dir) throws Exception {
    String id = d.submit(ALICE);
    String day = records().get(0).file(UTC);
    Files.writeString(dir.resolve(day), "11/14/2023 22:13:20;E;0.srv;user=cut-of");
    AccountingLog log = new AccountingLog(dir, UTC);
    log.record(ClusterState.EMPTY, d.journal);
    log.close();
    List<String> lines = Files.readAllLines(dir.resolve(day));
    assertEquals(2, lines.size(), lines.toString());
    assertEquals("11/14/2023 22:13:20;E;0.srv;user=cut-of", lines.get(0));
    assertTrue(lines.get(1).endsWith(";Q;" + id + ";queue=batch"), lines.toString());
  }

  @Test
  void theLiveFilesAndTheJournalsReplayAreTheSameBytes(@TempDir Path dir) throws Exception {
    String id = d.submit(ALICE, attr(AttributeNames.ACCOUNT_NAME, "proj"));
    d.schedule();
    d.started(id);
    d.advance(86_400); // into the next day
    d.obit(id, 0);
    d.qdel(ALICE, d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u")));

    AccountingLog live = new AccountingLog(dir.resolve("live"), UTC);
    int half = d.journal.size() / 2; // in two batches, as the server commits them
    live.record(ClusterState.EMPTY, d.journal.subList(0, half));
    ClusterState middle = ClusterState.EMPTY;
    for (Event e : d.journal.subList(0, half)) {
      middle = StateMachine.apply(middle, e);
    }
    live.record(middle, d.journal.subList(half, d.journal.size()));
    live.close();

    try (RocksJournal journal = RocksJournal.open(dir.resolve("journal"))) {
      journal.append(d.journal).get(10, TimeUnit.SECONDS);
      AccountingReply replayed =
          AccountingReplay.files(journal, AccountingRequest.getDefaultInstance(), UTC);
      assertEquals(2, replayed.getFilesCount(), "two days: " + replayed);
      for (var f : replayed.getFilesList()) {
        assertEquals(
            Files.readString(dir.resolve("live").resolve(f.getName())),
            f.getText().toString(StandardCharsets.UTF_8));
      }
      AccountingReply secondDay =
          AccountingReplay.files(
              journal,
              AccountingRequest.newBuilder()
                  .setFrom(replayed.getFiles(1).getName())
                  .setTo(replayed.getFiles(1).getName())
                  .build(),
              UTC);
      assertEquals(List.of(replayed.getFiles(1)), secondDay.getFilesList());
    }
  }
}
