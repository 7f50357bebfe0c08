package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.TestUsers.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A mom that cannot read its job records when it starts again, while a rerunnable job runs on its
 * node: it leaves the job's processes and cgroup alone, its node goes offline with the problem as
 * its note, and the server keeps the job as it is (running once, nowhere else) until an
 * administrator restores the records or purges the job.
 */
@Tag("integration")
class UnreadableRecordsIT {
  private static final Duration START = Duration.ofSeconds(30);

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE);
    cluster = MultiNodeCluster.start();
    cluster.qmgr("set server cgroup_enable = True");
    cluster.qmgr("set server node_check_rate = 60"); // a restarted mom is back long before
    work = MultiNodeCluster.workFor(ALICE, "berth-unreadable-");
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(work);
  }

  @Test
  void aJobWhoseRecordIsDamagedRunsOnOnceAndIsFoundAgainWhenTheRecordIsBack() throws Exception {
    cluster.startMom("d1", "0");
    cluster.qmgr("set node d1 properties = damaged");
    String id = submit("sleep 3101\n", "damaged");
    Job running = cluster.await(id, j -> j.getStartTime() > 0, START);
    Path runRecord = records("d1").resolve(id + ".record");
    byte[] intact = Files.readAllBytes(runRecord);
    byte[] damaged = intact.clone();
    damaged[12] ^= 0x55; // in the run request, with the starter's process after it

    cluster.killMom("d1");
    Files.write(runRecord, damaged);
    cluster.launchMom("d1", "0");
    String note = awaitOffline("d1");
    assertTrue(note.contains("cannot read its records of jobs " + id + " ("), note);
    Job kept = cluster.await(id, j -> j.getComment().contains("cannot read"), START);
    assertEquals(JobState.RUNNING, kept.getState(), kept.toString());
    assertEquals(running.getSessionId(), kept.getSessionId(), "the same run, not another");
    assertEquals(1, kept.getRunCount());
    assertTrue(
        kept.getComment().startsWith("node d1 cannot read its record of the job ("),
        kept.getComment());
    assertTrue(kept.getComment().contains("checksum mismatch"), kept.getComment());
    assertEquals(1, copies("3101"), "one copy of the job runs, and no other was started");
    assertTrue(cgroupOn("d1", id), "its cgroup is not taken for a leftover");
    assertTrue(trace(id).contains("cannot read its record of the job"), trace(id));

    // The administrator restores the record and restarts the mom: it finds the job again.
    cluster.killMom("d1");
    Files.write(runRecord, intact);
    cluster.launchMom("d1", "0");
    cluster.await(
        id, j -> j.getComment().equals("node d1 reads its record of the job again"), START);
    assertEquals(0, cluster.cli("pbsnodes", "-c", "d1").exit());
    assertEquals(0, cluster.cli("qdel", id).exit());
    cluster.await(id, j -> j.getState() == JobState.COMPLETED, START);
    awaitTrue(() -> !cgroupOn("d1", id) && copies("3101") == 0, START);
    cluster.qmgr("set node d1 state = offline");
  }

  @Test
  void aMomThatCannotReadItsRecordsKeepsEveryJobUntilItIsPurgedAndTheRecordsAreReplaced()
      throws Exception {
    cluster.startMom("d2", "1");
    cluster.qmgr("set node d2 properties = unreadable");
    String id = submit("sleep 3102\n", "unreadable");
    Job running = cluster.await(id, j -> j.getStartTime() > 0, START);

    cluster.killMom("d2");
    Path records = records("d2");
    Path away = records.resolveSibling("jobs.away");
    Files.move(records, away);
    Files.writeString(records, "not a directory");
    cluster.launchMom("d2", "1");
    String note = awaitOffline("d2");
    assertTrue(note.contains("cannot read its job records (NotDirectoryException"), note);
    Job kept = cluster.await(id, j -> j.getComment().contains("cannot read"), START);
    assertEquals(JobState.RUNNING, kept.getState(), kept.toString());
    assertEquals(running.getSessionId(), kept.getSessionId());
    assertEquals(1, copies("3102"), "one copy of the job runs, and no other was started");
    assertTrue(cgroupOn("d2", id), "no cgroup is taken for a leftover");

    // The administrator gives the job up, and starts the mom on fresh records: without a record,
    // the job's cgroup and processes are a crash's leftovers and go.
    assertEquals(0, cluster.cli("qdel", "-p", id).exit());
    Job purged = cluster.await(id, j -> j.getState() == JobState.COMPLETED, START);
    assertEquals(256 + 9, purged.getExitStatus());
    cluster.killMom("d2");
    Files.delete(records);
    JobFiles.removeTree(away);
    cluster.launchMom("d2", "1");
    awaitTrue(() -> !cgroupOn("d2", id) && copies("3102") == 0, START);
    assertEquals(0, cluster.cli("pbsnodes", "-c", "d2").exit());
    cluster.awaitNode("d2", "free");
    cluster.qmgr("set node d2 state = offline");
  }

  private String submit(String script, String property) throws IOException {
    return cluster.submitAs(
        ALICE, work, script, "-l", "nodes=1:ppn=1:" + property, "-r", "y", "-j", "oe");
  }

  /** A node's mom's job records. */
  private static Path records(String node) {
    return cluster.home.resolve("mom").resolve(node).resolve("jobs");
  }

  /**
   * Waits until the node is offline, which also shows the server has handled the hello its mom sent
   * before the trouble; returns the node's note.
   */
  private static String awaitOffline(String node) {
    String[] out = {""};
    awaitTrue(
        () -> {
          out[0] = cluster.cli("pbsnodes", "-a", node).out();
          return out[0].contains("offline") && out[0].contains("note = mom: ");
        },
        START,
        () -> out[0] + "\n" + cluster.momLog(node));
    return out[0].substring(out[0].indexOf("note = "));
  }

  /** How many copies of the test job's {@code sleep SECONDS} run on this host. */
  private static int copies(String seconds) {
    return Processes.running("sleep", seconds).size();
  }

  private static String trace(String id) {
    return cluster.cli("tracejob", id).out();
  }

  private static boolean cgroupOn(String node, String id) {
    return cluster.hasCgroupOn(node, id);
  }
}
