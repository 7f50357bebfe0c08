package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Job ids where parallel file systems read them, and the job's block I/O, on two moms: every
 * process carries PBS_JOBID, every session the job starts on a node is tagged through the node's
 * per-session job id file (a stand-in regular file here, where Lustre has
 * /sys/fs/lustre/jobid_this_session: each tag adds a line), and what the job writes to disk on each
 * node reaches resources_used, summed.
 */
@Tag("integration")
class FileSystemJobIdIT {
  static final String USER = TestUsers.ALICE;
  static final long MIB = 1 << 20;

  static MultiNodeCluster cluster;
  static Path work;
  static Path tags;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    JobTools.ensureOnPath();
    work = MultiNodeCluster.workFor(USER, "berth-fsid-work-");
    tags = Files.createTempDirectory(Path.of("/tmp"), "berth-fsid-tags-");
    Files.setPosixFilePermissions(tags, PosixFilePermissions.fromString("rwxr-xr-x"));
    cluster = MultiNodeCluster.start();
    for (String node : new String[] {"a", "b"}) {
      Path tag = Files.writeString(tags.resolve(node), "");
      cluster.startMom(
          node, node.equals("a") ? "0" : "1", "--node-hostname", "--session-jobid", tag.toString());
    }
    cluster.qmgr("set server cgroup_enable = True");
  }

  @AfterEach
  void deleteLeftovers() {
    cluster.deleteUnfinished();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
    JobFiles.removeTree(tags);
  }

  private static Job run(String script, String... options) throws IOException {
    List<String> argv = new ArrayList<>(List.of("-j", "oe", "-l", "nodes=2:ppn=1"));
    argv.addAll(List.of(options));
    String id = cluster.submitAs(USER, work, script, argv.toArray(String[]::new));
    Job job = cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(90));
    assertEquals(0, job.getExitStatus(), MultiNodeCluster.output(job));
    return job;
  }

  /** The user asks for another job's id in their environment: the tags are their job's. */
  @Test
  void everySessionOfAJobOnEveryNodeIsTaggedAndEveryProcessHasPbsJobid() throws Exception {
    Files.writeString(tags.resolve("a"), "");
    Files.writeString(tags.resolve("b"), "");
    Path ids = work.resolve("ids");
    Job job =
        run(
            "echo \"script $PBS_JOBID\" >> "
                + ids
                + "\npbsdsh -u sh -c 'echo \"$(hostname) $PBS_JOBID\" >> "
                + ids
                + "'\n",
            "-v",
            "PBS_JOBID=666.someone-else");
    String id = job.getId();
    // node a: the script's session and its pbsdsh task's; node b: its task's
    assertEquals(id + "\n" + id + "\n", Files.readString(tags.resolve("a")));
    assertEquals(id + "\n", Files.readString(tags.resolve("b")));
    String seen = Files.readString(ids);
    for (String who : new String[] {"script", "a", "b"}) {
      assertTrue(seen.contains(who + " " + id + "\n"), seen);
    }
  }

  @Test
  void whatAJobWritesToDiskOnEveryNodeIsSummedInResourcesUsed() throws Exception {
    // v1 blkio counts what the job writes out itself (fsync), not the kernel's later writeback
    Job job =
        run(
            "pbsdsh -u sh -c 'dd if=/dev/zero of="
                + work
                + "/$(hostname).dat bs=1M count=50 conv=fsync 2>/dev/null'\n");
    assertTrue(job.getResourcesUsed().getIoWrite() >= 100 * MIB, job.getResourcesUsed().toString());
    String qstat = cluster.cli("qstat", "-f", job.getId()).out();
    assertTrue(qstat.contains("resources_used.io_write = "), qstat);
    Files.delete(work.resolve("a.dat"));
    Files.delete(work.resolve("b.dat"));
  }
}
