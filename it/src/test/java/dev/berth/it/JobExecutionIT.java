package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
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

/** Jobs really run on this host: environment, files, exit status, walltime, qdel, holds. */
@Tag("integration")
class JobExecutionIT {
  static TestCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start();
    work = Files.createTempDirectory(Path.of("/tmp"), "berth-it-work-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    dev.berth.mom.os.JobFiles.removeTree(work);
  }

  @Test
  void scriptRunsWithTorqueEnvironmentAndWritesItsOutputInTheSubmitDirectory() throws IOException {
    String id =
        cluster.submit(
            work,
            """
            #!/bin/bash
            #PBS -N envcheck
            #PBS -l nodes=1:ppn=1,walltime=00:10:00
            #PBS -j oe
            echo "cwd=$(pwd)"
            echo "jobid=$PBS_JOBID name=$PBS_JOBNAME queue=$PBS_QUEUE env=$PBS_ENVIRONMENT"
            echo "workdir=$PBS_O_WORKDIR np=$PBS_NP nodes=$PBS_NUM_NODES ppn=$PBS_NUM_PPN"
            echo "task=$PBS_TASKNUM node=$PBS_NODENUM vnode=$PBS_VNODENUM"
            echo "nodefile=$(cat $PBS_NODEFILE)"
            echo "tmpdir=$TMPDIR"
            """);
    Job job = cluster.awaitState(id, JobState.COMPLETED);
    assertEquals(0, job.getExitStatus());
    assertTrue(job.getStartTime() > 0 && job.getCompTime() >= job.getStartTime(), job.toString());
    Path out = work.resolve("envcheck.o" + job.getNumber());
    String text = Files.readString(out);
    assertTrue(text.contains("cwd=/root"), text);
    assertTrue(text.contains("jobid=" + id + " name=envcheck queue=batch env=PBS_BATCH"), text);
    assertTrue(text.contains("workdir=" + work + " np=1 nodes=1 ppn=1"), text);
    assertTrue(text.contains("task=1 node=0 vnode=0"), text);
    assertTrue(text.contains("nodefile=" + cluster.node), text);
    assertFalse(Files.exists(work.resolve("envcheck.e" + job.getNumber())), "-j oe joins stderr");
  }

  @Test
  void dashDChangesTheWorkingDirectoryAndDashVAddsVariables() throws IOException {
    Path dir = Files.createDirectory(work.resolve("initdir"));
    String id =
        cluster.submit(
            work,
            "echo \"cwd=$(pwd) initdir=$PBS_O_INITDIR foo=$FOO"
                + " shell=$(tr '\\0' ' ' < /proc/$$/cmdline | cut -d' ' -f1)\"\n",
            "-N",
            "dflag",
            "-d",
            dir.toString(),
            "-v",
            "FOO=bar baz",
            "-S",
            "/bin/sh");
    Job job = cluster.awaitState(id, JobState.COMPLETED);
    String text = Files.readString(work.resolve("dflag.o" + job.getNumber()));
    assertEquals("cwd=" + dir + " initdir=" + dir + " foo=bar baz shell=-sh\n", text);
  }

  @Test
  void exitStatusFollowsTorqueConventions() throws IOException {
    String exits = cluster.submit(work, "echo to-stderr >&2\nexit 3\n", "-N", "exits");
    String killed = cluster.submit(work, "kill -9 $$\n", "-N", "killed");
    Job e = cluster.awaitState(exits, JobState.COMPLETED);
    Job k = cluster.awaitState(killed, JobState.COMPLETED);
    assertEquals(3, e.getExitStatus());
    assertEquals("to-stderr\n", Files.readString(work.resolve("exits.e" + e.getNumber())));
    assertEquals(256 + 9, k.getExitStatus(), "a job killed by signal 9 exits 256+9");
  }

  @Test
  void walltimeIsEnforcedAndTheReasonIsReported() throws IOException {
    String id = cluster.submit(work, "sleep 60\n", "-N", "longjob", "-l", "walltime=00:00:02");
    Job job = cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(30));
    assertEquals(-11, job.getExitStatus(), "Torque's JOB_EXEC_OVERLIMIT_WT");
    assertTrue(job.getComment().contains("walltime"), job.getComment());
    String stderr = Files.readString(work.resolve("longjob.e" + job.getNumber()));
    assertTrue(stderr.contains("exceeded limit 2"), stderr);
    assertTrue(cluster.cli("tracejob", id).out().contains("walltime"));
    String full = cluster.cli("qstat", "-f", id).out();
    assertTrue(full.contains("exit_status = -11"), full);
  }

  /** The estimate a running job without a walltime is planned to end with, and where from. */
  @Test
  void qstatShowsTheEstimateARunningJobWithoutAWalltimeIsPlannedWith() throws IOException {
    String id = cluster.submit(work, "sleep 60\n", "-N", "open");
    cluster.awaitState(id, JobState.RUNNING);
    String full = cluster.cli("qstat", "-f", id).out();
    assertTrue(
        full.contains(
            "    planned_walltime = 01:00:00 (the server's estimate for jobs without one)\n"),
        full);
    assertEquals(0, cluster.cli("qdel", id).exit());
    cluster.awaitState(id, JobState.COMPLETED);
  }

  @Test
  void qdelOfARunningJobKillsItsWholeProcessTree() throws IOException {
    String id =
        cluster.submit(
            work,
            """
            sleep 3001 &
            ( sleep 3002 & wait ) &
            bash -c 'sleep 3003' &
            sleep 3004
            """,
            "-N",
            "tree");
    Job running = cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    cluster.await(id, j -> sleepers().size() >= 4, Duration.ofSeconds(10));
    long before = System.currentTimeMillis();
    TestCluster.Result r = cluster.cli("qdel", id);
    assertEquals(0, r.exit(), r.toString());
    Job done = cluster.awaitState(id, JobState.COMPLETED);
    cluster.await(id, j -> sleepers().isEmpty(), Duration.ofSeconds(5));
    assertTrue(System.currentTimeMillis() - before < 5000, "killed within 5 s");
    assertTrue(done.getExitStatus() > 256, "killed by a signal: " + done.getExitStatus());
    assertTrue(done.getComment().startsWith("deleted by root@"), done.getComment());
    assertTrue(running.getSessionId() > 0);
  }

  @Test
  void heldJobsWaitUntilReleased() throws IOException {
    String id = cluster.submit(work, "true\n", "-h", "-N", "held");
    assertEquals(JobState.HELD, cluster.job(id).getState());
    TestCluster.sleep(1500);
    assertEquals(JobState.HELD, cluster.job(id).getState(), "a held job is not scheduled");
    assertEquals(0, cluster.cli("qrls", id).exit());
    assertEquals(0, cluster.awaitState(id, JobState.COMPLETED).getExitStatus());
  }

  /** The test's sleep processes, found by their unusual arguments. */
  private static List<Long> sleepers() {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.matches(".*sleep 300[1-4].*")).orElse(false))
        .map(ProcessHandle::pid)
        .toList();
  }
}
