package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The site's scripts on two moms, with jobs of an unprivileged user: a root prologue and a user
 * epilogue around a job (and the parallel ones on the sister), a prologue that fails (the job is
 * requeued and, after three failed starts, held) or aborts (exit 1: the job ends, its output says
 * why), and a node health check that takes its node offline and brings it back.
 */
@Tag("integration")
class SiteScriptsIT {
  static final String USER = TestUsers.ALICE;

  static MultiNodeCluster cluster;
  static Path work;
  static Path sites;
  static Path markers;
  static Path flag;
  static Path flagOfC;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    work = MultiNodeCluster.workFor(USER, "berth-site-work-");
    sites = directory(Files.createTempDirectory(Path.of("/tmp"), "berth-site-"));
    markers = directory(sites.resolve("markers"));
    flag = sites.resolve("unwell");
    flagOfC = sites.resolve("c-unwell");
    Path a = directory(sites.resolve("a"));
    Path b = directory(sites.resolve("b"));
    script(
        a.resolve("prologue"),
        "rwx------",
        "echo \"$1 $2 $3 $4 $5 $6 $7 $(id -un) $PBS_JOBID\" > " + markers + "/prologue.$1",
        "echo \"prologue: hello from $(hostname)\"",
        "case \"$4\" in",
        "  abortme) echo \"prologue: $1 may not run here\" >&2; exit 1 ;;",
        "  failme) exit 2 ;;",
        "esac");
    script(
        a.resolve("epilogue.user"),
        "rwxr-xr-x",
        "echo \"$1 $(id -un) session=$5 exit=${10} used=$7\" > \"$PBS_O_WORKDIR/epilogue.$1\"");
    script(
        b.resolve("prologue.parallel"),
        "rwx------",
        "echo \"$1 $PBS_NODENUM\" > " + markers + "/parallel.$1");
    script(
        b.resolve("epilogue.parallel"), "rwx------", "touch " + markers + "/epilogue-parallel.$1");
    Path check =
        script(
            sites.resolve("check"),
            "rwx------",
            "[ -e " + flag + " ] && echo 'ERROR: the test raised its flag on b'",
            "exit 0");
    Path checkOfC =
        script(
            sites.resolve("check-c"),
            "rwx------",
            "[ -e " + flagOfC + " ] && echo 'ERROR: c is unwell'",
            "exit 0");
    cluster = MultiNodeCluster.start();
    cluster.startMom("a", "0", "--node-hostname", "--hook-dir", a.toString());
    cluster.startMom(
        "b",
        "1",
        "--node-hostname",
        "--hook-dir",
        b.toString(),
        "--health-check",
        check.toString(),
        "--health-check-interval",
        "1");
    cluster.startMom(
        "c", "0", "--health-check", checkOfC.toString(), "--health-check-interval", "0,jobstart");
  }

  private static Path directory(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    return dir;
  }

  private static Path script(Path file, String mode, String... lines) throws IOException {
    Files.writeString(file, "#!/bin/sh\n" + String.join("\n", lines) + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  @AfterEach
  void deleteLeftovers() throws IOException {
    cluster.deleteUnfinished();
    Files.deleteIfExists(flag);
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    JobFiles.removeTree(work);
    JobFiles.removeTree(sites);
  }

  private static String qsub(String script, String... options) throws IOException {
    return cluster.submitAs(USER, work, script, options);
  }

  private static Job await(String id, JobState state) {
    return cluster.await(id, j -> j.getState() == state, Duration.ofSeconds(90));
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  @Test
  void aRootPrologueAndAUserEpilogueRunAroundTheJobAndTheParallelOnesOnTheSister()
      throws Exception {
    String id =
        qsub(
            "echo 'the job ran'\nexit 3\n",
            "-N",
            "around",
            "-j",
            "oe",
            "-A",
            "proj",
            "-l",
            "nodes=a:ppn=1+b:ppn=1,walltime=00:05:00");
    Job job = await(id, JobState.COMPLETED);
    assertEquals(3, job.getExitStatus(), MultiNodeCluster.output(job));
    String prologue = read(markers.resolve("prologue." + id));
    assertTrue(prologue.startsWith(id + " " + USER + " " + job.getEgroup() + " around "), prologue);
    assertTrue(prologue.contains(",nodes=a:ppn=1+b:ppn=1,"), prologue);
    assertTrue(prologue.endsWith(" batch proj root " + id + "\n"), prologue);
    String output = MultiNodeCluster.output(job);
    assertTrue(
        output.startsWith("prologue: hello from a\nthe job ran\n"),
        "the prologue's output comes first, the job's is not lost: " + output);
    String epilogue = read(work.resolve("epilogue." + id));
    assertTrue(
        epilogue.startsWith(
            id + " " + USER + " session=" + job.getSessionId() + " exit=3 used=cput="),
        epilogue);
    assertTrue(epilogue.contains(",walltime="), epilogue);
    assertEquals(id + " 1\n", read(markers.resolve("parallel." + id)));
    assertTrue(Files.exists(markers.resolve("epilogue-parallel." + id)));
  }

  /**
   * Root's prologue writes into the job's output file as the job's owner, never as root: a job
   * whose output path is a root-owned file gets nothing written there.
   */
  @Test
  void aRootPrologueCannotBeMadeToWriteWhereTheOwnerCannot() throws Exception {
    // qsub refuses a file its caller cannot write (OutputChecks): the file is root's only once
    // the held job has been submitted, as a file can become between submission and start
    Path target = work.resolve("roots-file");
    String id =
        qsub(
            "echo job\n",
            "-h",
            "-N",
            "attack",
            "-j",
            "oe",
            "-o",
            target.toString(),
            "-l",
            "nodes=a:ppn=1");
    Files.writeString(target, "root's\n");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    TestCluster.Result released = cluster.cli("qrls", id);
    assertEquals(0, released.exit(), released.toString());
    Job job = await(id, JobState.COMPLETED);
    assertTrue(Files.exists(markers.resolve("prologue." + id)), "the prologue ran: " + job);
    assertEquals("root's\n", Files.readString(target), "nothing written as root: " + job);
  }

  @Test
  void aFailingPrologueRequeuesTheJobSayingWhyAndThreeInARowHoldIt() {
    String id;
    try {
      id = qsub("echo never\n", "-N", "failme", "-l", "nodes=a:ppn=1");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Job job = await(id, JobState.HELD);
    assertEquals(
        "held: its start failed 3 times in a row, the last: prologue failed on a: prologue exited"
            + " with status 2",
        job.getComment());
    assertTrue(job.getHolds().getSystem());
    String trace = cluster.cli("tracejob", id).out();
    assertTrue(
        trace.contains("requeued: prologue failed on a: prologue exited with status 2"), trace);
  }

  @Test
  void aPrologueExitingOneAbortsTheJobItsStderrSaysWhyAndTheEpiloguesStillRun() throws Exception {
    String id = qsub("echo never\n", "-N", "abortme", "-l", "nodes=a:ppn=1");
    Job job = await(id, JobState.COMPLETED);
    assertEquals(-2, job.getExitStatus());
    assertTrue(
        job.getComment().contains("prologue failed on a: prologue exited with status 1"),
        job.getComment());
    Path stderr = work.resolve("abortme.e" + id.substring(0, id.indexOf('.')));
    awaitTrue(
        () -> read(stderr).contains("prologue: " + id + " may not run here"),
        Duration.ofSeconds(10));
    assertTrue(
        read(work.resolve("abortme.o" + id.substring(0, id.indexOf('.'))))
            .contains("prologue: hello from a"));
    assertTrue(!read(stderr).contains("never"));
    // the epilogues follow a failed prologue, as in Torque, to undo what it began
    assertTrue(
        read(work.resolve("epilogue." + id)).contains(" exit=-2 "),
        read(work.resolve("epilogue." + id)) + cluster.momLog("a"));
  }

  @Test
  void aHealthCheckErrorTakesItsNodeOfflineWithinAnIntervalAndItComesBackWhenItPasses()
      throws Exception {
    Files.writeString(flag, "");
    awaitTrue(
        () -> {
          String b = cluster.cli("pbsnodes", "b").out();
          return b.contains("state = offline\n")
              && b.contains("note = ERROR: the test raised its flag on b\n");
        },
        Duration.ofSeconds(10));
    Files.delete(flag);
    cluster.awaitNode("b", "free");
    assertTrue(!cluster.cli("pbsnodes", "b").out().contains("note ="));
  }

  @Test
  void aNodeFoundUnwellAsAJobStartsThereSendsTheJobBackToTheQueue() throws Exception {
    // c checks only as jobs start (interval 0,jobstart): nothing else can find the flag first
    Files.writeString(flagOfC, "");
    String id = qsub("echo never\n", "-l", "nodes=c:ppn=1");
    // a queued job's comment shows the scheduler's view; the requeue is in its history
    awaitTrue(
        () ->
            cluster
                .cli("tracejob", id)
                .out()
                .contains("requeued: the health check of c failed: ERROR: c is unwell"),
        Duration.ofSeconds(60),
        () -> cluster.cli("tracejob", id).out() + cluster.momLog("c"));
    assertEquals(1, cluster.job(id).getFailedStarts());
    awaitTrue(
        () -> cluster.cli("pbsnodes", "c").out().contains("note = ERROR: c is unwell\n"),
        Duration.ofSeconds(10));
    assertTrue(cluster.cli("pbsnodes", "c").out().contains("state = offline\n"));
  }
}
