package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.TestUsers.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.daemon.BerthHome;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A two-node job that cannot start ends as a failed start the user can see: exit status -1 with the
 * reason in its comment and in tracejob, and nothing of it left on either node (no cgroup, TMPDIR
 * or record, no job in pbsnodes), so the next job gets the same CPUs.
 */
@Tag("integration")
class FailedStartIT {
  private static final Duration WITHIN = Duration.ofSeconds(30);

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE);
    cluster = MultiNodeCluster.start();
    cluster.startMom("f1", "0");
    cluster.startMom("f2", "1");
    cluster.qmgr("set node f1 properties = pair");
    cluster.qmgr("set node f2 properties = pair");
    cluster.qmgr("set server cgroup_enable = True");
    work = MultiNodeCluster.workFor(ALICE, "berth-failed-start-");
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(work);
  }

  @Test
  void aJobItsSisterRefusesEndsWithTheSistersReason() throws Exception {
    // The sister cannot make the job's TMPDIR: a file stands where its job directories go.
    Path base = new BerthHome(cluster.home).jobTmp().resolve("f2");
    Path aside = base.resolveSibling("f2.aside");
    Files.move(base, aside);
    Files.writeString(base, "not a directory");
    String id;
    Job failed;
    try {
      id = cluster.submitAs(ALICE, work, "sleep 3201\n", "-l", "nodes=2:ppn=1:pair");
      failed = cluster.await(id, j -> j.getState() == JobState.COMPLETED, WITHIN);
    } finally {
      Files.delete(base);
      Files.move(aside, base);
    }
    assertEquals(List.of("f1", "f2"), nodes(failed));
    assertEquals(-1, failed.getExitStatus(), failed.toString());
    String reason =
        "could not start on f1: sister f2 refused the job: cannot create the job directory "
            + base.resolve(id)
            + " on f2: ";
    assertTrue(failed.getComment().startsWith(reason), failed.getComment());
    assertTrue(trace(id).contains("Job ended: " + reason), trace(id));
    assertNothingLeft(id);
  }

  @Test
  void aJobWhoseOutputFileCannotBeMadeEndsWithTheReason() throws Exception {
    // qsub refuses a directory its caller cannot write (OutputChecks): the directory is open
    // when the job is submitted, held, and closed before it is released
    Path closed = Files.createTempDirectory(Path.of("/tmp"), "berth-closed-"); // root's
    Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwxrwxrwx"));
    try {
      Path out = closed.resolve("never.out");
      String id =
          cluster.submitAs(
              ALICE, work, "echo ran\n", "-h", "-l", "nodes=2:ppn=1:pair", "-o", out.toString());
      Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwxr-xr-x"));
      TestCluster.Result released = cluster.cli("qrls", id);
      assertEquals(0, released.exit(), released.toString());
      Job failed = cluster.await(id, j -> j.getState() == JobState.COMPLETED, WITHIN);
      assertEquals(-1, failed.getExitStatus(), failed.toString());
      assertTrue(
          failed.getComment().startsWith("could not start on f1: cannot open output file " + out),
          failed.getComment());
      assertTrue(trace(id).contains("Job ended: could not start on f1: cannot open"), trace(id));
      assertFalse(Files.exists(out));
      assertNothingLeft(id);
    } finally {
      JobFiles.removeTree(closed);
    }
  }

  /**
   * Nothing of the job is left on either node: already when the server has ended it (each sister
   * confirmed it before the mother superior reported), but for the mother superior's record, which
   * holds the obit until the server acknowledges it. Then the next job that asks for both nodes
   * gets the same CPUs.
   */
  private static void assertNothingLeft(String id) throws IOException {
    Path tmp = new BerthHome(cluster.home).jobTmp();
    for (String node : List.of("f1", "f2")) {
      Path jobs = cluster.home.resolve("mom").resolve(node).resolve("jobs");
      Path record = jobs.resolve(id + ".record");
      assertFalse(cluster.hasCgroupOn(node, id), "a cgroup on " + node);
      assertFalse(Files.exists(tmp.resolve(node).resolve(id)), "a TMPDIR on " + node);
      if (node.equals("f1")) {
        awaitTrue(() -> !Files.exists(record), WITHIN, () -> cluster.momLog(node));
      } else {
        assertFalse(Files.exists(record), "a record on " + node);
      }
      assertFalse(Files.exists(jobs.resolve(id)), "a job directory on " + node);
      assertFalse(cluster.cli("pbsnodes", "-a", node).out().contains("jobs = "), node);
    }
    String next =
        cluster.submitAs(ALICE, work, "sleep 3202\n", "-l", "nodes=2:ppn=1:pair", "-j", "oe");
    Job running = cluster.await(next, j -> j.getStartTime() > 0, WITHIN);
    assertEquals(List.of(List.of(0), List.of(1)), cpus(running), "the same CPUs, free again");
    assertEquals(0, cluster.cli("qdel", next).exit());
    cluster.await(next, j -> j.getState() == JobState.COMPLETED, WITHIN);
    awaitTrue(() -> !cluster.hasCgroups(next), WITHIN);
  }

  private static String trace(String id) {
    return cluster.cli("tracejob", id).out();
  }

  private static List<String> nodes(Job job) {
    return job.getExecNodesList().stream().map(NodeAllocation::getNode).toList();
  }

  private static List<List<Integer>> cpus(Job job) {
    return job.getExecNodesList().stream().map(NodeAllocation::getCpusList).toList();
  }
}
