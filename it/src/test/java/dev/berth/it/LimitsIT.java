package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Torque's per-process limits (pcput, file, pvmem, pmem) and nice, as an ordinary user on two of
 * three moms, with cgroups on and off: the job script, every pbsdsh task and every MPI rank starts
 * with them, cannot raise them, and a process over one is stopped by the kernel; a job without them
 * beside it on the same nodes is untouched.
 */
@Tag("integration")
class LimitsIT {
  static final String USER = TestUsers.ALICE;
  static final String TWO_NODES = "nodes=a:ppn=1+b:ppn=1";

  /**
   * What a process sees: its host, ulimit -t, -f (blocks: 1 KiB in bash, the script's login shell,
   * and 512 bytes in sh), -v and -m (KiB), and its nice value.
   */
  static final String SHOW =
      "echo \"$(hostname) t=$(ulimit -t) f=$(ulimit -f) v=$(ulimit -v) m=$(ulimit -m)"
          + " n=$(cut -d' ' -f19 /proc/self/stat)\"";

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    JobTools.ensureOnPath();
    cluster = MultiNodeCluster.threeHosts();
    work = MultiNodeCluster.workFor(USER, "berth-limits-work-");
  }

  @AfterEach
  void deleteLeftovers() throws IOException {
    cluster.deleteUnfinished();
    cluster.qmgr("set server cgroup_enable = True");
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(work);
  }

  private static String submit(String script, String... args) throws IOException {
    List<String> argv = new ArrayList<>(List.of("-j", "oe", "-l", TWO_NODES));
    argv.addAll(List.of(args));
    return cluster.submitAs(
        USER, work, "cd $PBS_O_WORKDIR\n" + script, argv.toArray(String[]::new));
  }

  private static Job done(String id) {
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
  }

  @Test
  void everyProcessOfTheJobStartsWithItsLimitsOnEveryNodeAndOthersDoNot() throws Exception {
    for (boolean cgroups : new boolean[] {true, false}) {
      cluster.qmgr("set server cgroup_enable = " + (cgroups ? "True" : "False"));
      String limited =
          submit(
              SHOW
                  + "\npbsdsh -u sh -c '"
                  + SHOW.replace("'", "'\\''")
                  + "' | sort\nmpirun sh -c '"
                  + SHOW.replace("'", "'\\''")
                  + "' | sort\nulimit -t 100 2>/dev/null || echo cannot raise\n",
              "-l",
              "pcput=30,file=1mb,pvmem=2gb,pmem=100mb,nice=19");
      // beside it on the same nodes, a job without limits: two seconds of CPU and a 2 MB file
      String free =
          submit(
              SHOW
                  + "\nend=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done\n"
                  + "head -c 2000000 /dev/zero > free.$PBS_JOBID && wc -c < free.$PBS_JOBID\n");
      String seen = "t=30 f=2048 v=2097152 m=102400 n=19";
      Job job = done(limited);
      assertEquals(0, job.getExitStatus(), output(job));
      assertEquals(
          "a "
              + seen.replace("f=2048", "f=1024") // bash counts ulimit -f in KiB, sh in 512 bytes
              + "\na "
              + seen
              + "\nb "
              + seen
              + "\na "
              + seen
              + "\nb "
              + seen
              + "\ncannot raise\n",
          output(job),
          "cgroups " + cgroups);
      Job other = done(free);
      assertEquals(0, other.getExitStatus(), output(other));
      assertEquals(
          "a t=unlimited f=unlimited v=unlimited m=unlimited n=0\n2000000\n", output(other));
    }
  }

  @Test
  void aProcessOverItsCpuTimeOrFileSizeIsStoppedByTheKernelOnItsNode() throws Exception {
    for (boolean cgroups : new boolean[] {true, false}) {
      cluster.qmgr("set server cgroup_enable = " + (cgroups ? "True" : "False"));
      Job job =
          done(
              submit(
                  "sh -c 'while :; do :; done'; echo \"cpu rc=$?\"\n"
                      + "head -c 2000000 /dev/zero > big.$PBS_JOBID; echo \"file rc=$?\"\n"
                      + "wc -c < big.$PBS_JOBID\n"
                      + "pbsdsh -h b sh -c 'while :; do :; done'; echo \"task rc=$?\"\n",
                  "-l",
                  "pcput=1,file=1mb"));
      String out = output(job);
      assertEquals(0, job.getExitStatus(), out);
      assertTrue(out.contains("CPU time limit exceeded"), out);
      assertTrue(out.contains("cpu rc=152"), "128 + SIGXCPU: " + out);
      assertTrue(out.contains("File size limit exceeded"), out);
      assertTrue(out.contains("file rc=153"), "128 + SIGXFSZ: " + out);
      assertTrue(out.contains("\n1048576\n"), "the file stopped at the limit: " + out);
      assertTrue(out.contains("signal 24"), "pbsdsh names the task's signal: " + out);
      assertTrue(!out.contains("task rc=0"), out);
    }
  }

  /**
   * The job's stderr line, the exit status, and the reason the server keeps (comment, tracejob).
   */
  private static void assertKilledFor(Job job, String pattern, int exitStatus) {
    String out = output(job);
    assertEquals(exitStatus, job.getExitStatus(), out);
    assertTrue(
        out.lines().anyMatch(l -> l.matches("=>> PBS: job killed: " + pattern)),
        "Torque's line: " + out);
    assertTrue(
        job.getExitReason().matches("job killed: " + pattern),
        "the reason: " + job.getExitReason());
    String trace = cluster.cli("tracejob", job.getId()).out();
    assertTrue(
        trace.lines().anyMatch(l -> l.matches(".*job killed: " + pattern + ".*")),
        "tracejob: " + trace);
  }

  /**
   * cput is the CPU time of all the job's processes on all its nodes: the script burning it on the
   * first node, or a task burning it on the other, is killed as Torque kills it; a job under it
   * ends as it would.
   */
  @Test
  void aJobOverItsCpuTimeOnAnyOfItsNodesIsKilledWithTorquesLine() throws Exception {
    for (boolean cgroups : new boolean[] {true, false}) {
      cluster.qmgr("set server cgroup_enable = " + (cgroups ? "True" : "False"));
      String here = submit("while :; do :; done\n", "-l", "cput=2");
      String there = submit("pbsdsh -h b sh -c 'while :; do :; done'\n", "-l", "cput=2");
      String under =
          submit(
              "end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done\n",
              "-l", "cput=30");
      Job job = done(here);
      assertKilledFor(job, "cput \\d+ exceeded limit 2", -12);
      assertTrue(job.getResourcesUsed().getCput() > 2, "as polled: " + job.getResourcesUsed());
      assertKilledFor(done(there), "cput \\d+ exceeded limit 2", -12);
      Job fine = done(under);
      assertEquals(0, fine.getExitStatus(), output(fine));
    }
  }

  /**
   * vmem is the virtual memory of all the job's processes together (each one stays under it, as its
   * address space limit wants), and mem their resident memory where no cgroup holds it.
   */
  @Test
  void aJobOverItsMemoryIsKilledWithTorquesLine() throws Exception {
    String twoProcesses =
        "for i in 1 2; do python3 -c 'import time; b = bytearray(150 << 20); time.sleep(60)' &"
            + " done\nwait\n";
    for (boolean cgroups : new boolean[] {true, false}) {
      cluster.qmgr("set server cgroup_enable = " + (cgroups ? "True" : "False"));
      assertKilledFor(
          done(submit(twoProcesses, "-l", "vmem=250mb")),
          "vmem \\d+ exceeded limit 262144000",
          -10);
    }
    cluster.qmgr("set server cgroup_enable = False");
    String big = "python3 -c 'import time; b = bytearray(300 << 20); time.sleep(60)'\n";
    assertKilledFor(done(submit(big, "-l", "mem=100mb")), "mem \\d+ exceeded limit 104857600", -10);
    Job fine = done(submit("python3 -c 'b = bytearray(20 << 20)'\n", "-l", "mem=200mb,vmem=2gb"));
    assertEquals(0, fine.getExitStatus(), output(fine));
  }
}
