package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Hosts;
import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * sbatch as a user runs it, through the native client, to the same server as qsub: the job runs
 * with Slurm's variables and output file name, in the directory sbatch ran in, shows in qstat,
 * squeue, sinfo, scontrol and sacct, scontrol changes it and scancel ends it (its owner's, not
 * another user's), and what Berth does not honour is refused with nothing submitted. (MPI in sbatch
 * jobs is MpiIT's, on hosts of their own as every MPI test's: run here, on this host's own network
 * beside the other tests, an mpirun of this class's once hung.)
 */
@Tag("integration")
class SbatchIT {
  static TestCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE);
    TestUsers.ensure(BOB);
    cluster = TestCluster.start();
    work = MultiNodeCluster.workFor(ALICE, "berth-sbatch-");
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    JobFiles.removeTree(work);
  }

  /** A test that failed midway leaves no job holding the node's CPUs for the next. */
  @AfterEach
  void deleteUnfinished() {
    for (Job job : cluster.jobs()) {
      if (job.getState() != JobState.COMPLETED) {
        cluster.cli("qdel", job.getId());
      }
    }
  }

  private static Path script(String name, String text) throws IOException {
    Path file = work.resolve(name);
    Files.writeString(file, text);
    Files.setOwner(
        file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(ALICE));
    return file;
  }

  @Test
  void aSlurmScriptRunsWithSlurmsVariablesAndOutputFile() throws IOException {
    script(
        "env.sh",
        "#!/bin/bash\n"
            + "#SBATCH -J envcheck\n"
            + "#SBATCH -n 2 --time=5\n"
            + "#SBATCH -o out-%x-%j.txt\n"
            + "env | grep -E '^(SLURM_|PBS_JOBID=|OMPI_MCA_plm=)' | sort\n"
            + "echo cwd=$(pwd)\n"
            + "echo to-stderr >&2\n");
    TestCluster.Result r = cluster.runAs(ALICE, work, "sbatch", "env.sh");
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().matches("Submitted batch job \\d+\n"), r.out());
    String number = r.out().trim().replaceAll("\\D", "");
    Job job = cluster.awaitState(number, JobState.COMPLETED);
    assertEquals(0, job.getExitStatus());
    assertEquals("sbatch", job.getSubmitStyle());

    Path out = work.resolve("out-envcheck-" + number + ".txt");
    Map<String, String> seen = new HashMap<>();
    for (String line : Files.readAllLines(out)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        seen.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    assertEquals(number, seen.get("SLURM_JOB_ID"), seen.toString());
    assertEquals(number, seen.get("SLURM_JOBID"));
    assertEquals("envcheck", seen.get("SLURM_JOB_NAME"));
    assertEquals("2", seen.get("SLURM_NTASKS"));
    assertEquals("2", seen.get("SLURM_CPUS_ON_NODE"));
    assertEquals(Hosts.localName(), seen.get("SLURM_JOB_NODELIST"));
    assertEquals("1", seen.get("SLURM_NNODES"));
    assertEquals(work.toString(), seen.get("SLURM_SUBMIT_DIR"));
    assertEquals(ALICE, seen.get("SLURM_JOB_USER"));
    assertEquals(job.getId(), seen.get("PBS_JOBID"), "Torque's variables too");
    assertEquals("^slurm", seen.get("OMPI_MCA_plm"));
    assertEquals(work.toString(), seen.get("cwd"));
    assertTrue(Files.readString(out).contains("to-stderr\n"), "stderr joined to stdout");

    TestCluster.Result sacct =
        cluster.runAs(
            ALICE, work, "sacct", "-n", "-P", "-j", number, "-o", "jobid,jobname,state,exitcode");
    assertEquals(0, sacct.exit(), sacct.toString());
    assertEquals(number + "|envcheck|COMPLETED|0:0\n", sacct.out());

    TestCluster.Result qstat = cluster.runAs(ALICE, work, "qstat", "-f", number);
    assertEquals(0, qstat.exit(), qstat.toString());
    assertTrue(qstat.out().contains("submit_style = sbatch"), qstat.out());
  }

  /** squeue lists sbatch's and qsub's jobs alike, with Slurm's states and reasons. */
  @Test
  void squeueShowsEveryJobTheSlurmWay() throws IOException {
    script("held.sh", "#!/bin/sh\n#SBATCH -J slurmheld\ntrue\n");
    script("held.pbs", "#PBS -N pbsheld\ntrue\n");
    TestCluster.Result sb = cluster.runAs(ALICE, work, "sbatch", "--parsable", "-H", "held.sh");
    assertEquals(0, sb.exit(), sb.toString());
    TestCluster.Result qs = cluster.runAs(ALICE, work, "qsub", "-h", "held.pbs");
    assertEquals(0, qs.exit(), qs.toString());
    String slurm = sb.out().trim();
    String pbs = qs.out().trim().replaceAll("\\..*", "");
    TestCluster.Result listed =
        cluster.runAs(ALICE, work, "squeue", "--me", "-h", "-t", "PD", "-o", "%i %j %t %R");
    assertEquals(0, listed.exit(), listed.toString());
    assertEquals(
        slurm + " slurmheld PD (JobHeldUser)\n" + pbs + " pbsheld PD (JobHeldUser)\n",
        listed.out());
    TestCluster.Result header = cluster.runAs(ALICE, work, "squeue", "-j", slurm);
    assertTrue(
        header
            .out()
            .startsWith(
                "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"),
        header.out());
    TestCluster.Result after =
        cluster.runAs(
            ALICE, work, "sbatch", "--parsable", "--dependency=afterok:" + slurm, "held.sh");
    assertEquals(0, after.exit(), after.toString());
    TestCluster.Result waiting =
        cluster.runAs(ALICE, work, "squeue", "-h", "-j", after.out().trim(), "-o", "%i %r");
    assertEquals(after.out().trim() + " Dependency\n", waiting.out(), waiting.toString());

    // singleton: the held job of that name holds it back; once that one is gone, it runs
    TestCluster.Result single =
        cluster.runAs(ALICE, work, "sbatch", "--parsable", "--dependency=singleton", "held.sh");
    assertEquals(0, single.exit(), single.toString());
    String solo = single.out().trim();
    assertEquals(
        solo + " Dependency\n",
        cluster.runAs(ALICE, work, "squeue", "-h", "-j", solo, "-o", "%i %r").out());
    assertEquals(0, cluster.runAs(ALICE, work, "scancel", slurm).exit());
    assertEquals(0, cluster.awaitState(solo, JobState.COMPLETED).getExitStatus());

    TestCluster.Result info = cluster.runAs(ALICE, work, "sinfo");
    assertEquals(0, info.exit(), info.toString());
    assertTrue(
        info.out().startsWith("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"), info.out());
    assertTrue(info.out().contains(" " + Hosts.localName() + "\n"), info.out());

    TestCluster.Result cancelled = cluster.runAs(ALICE, work, "scancel", "--me", "-t", "PD");
    assertEquals(0, cancelled.exit(), cancelled.toString());
    assertEquals(JobState.COMPLETED, cluster.job(slurm).getState());
    assertEquals(JobState.COMPLETED, cluster.job(pbs).getState());
    TestCluster.Result again = cluster.runAs(ALICE, work, "scancel", "--me", "999999");
    assertEquals(1, again.exit(), again.toString());
    assertEquals(
        "scancel: error: Kill job error on job id 999999: Invalid job id specified\n", again.err());
  }

  /**
   * scontrol shows a job as Slurm does and changes it as qalter and qrls would; another user can
   * neither change nor cancel it, and the job is as its owner left it.
   */
  @Test
  void scontrolShowsAndChangesAJobThatAnotherUserCannotTouch() throws IOException {
    script("own.sh", "#!/bin/sh\n#SBATCH -J mine\ntrue\n");
    TestCluster.Result sb = cluster.runAs(ALICE, work, "sbatch", "--parsable", "-H", "own.sh");
    assertEquals(0, sb.exit(), sb.toString());
    String number = sb.out().trim();
    TestCluster.Result shown = cluster.runAs(ALICE, work, "scontrol", "show", "job", number);
    assertEquals(0, shown.exit(), shown.toString());
    for (String part :
        new String[] {
          "JobId=" + number + " JobName=mine\n",
          "   UserId=" + ALICE + " GroupId=",
          "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n",
          "   Command=" + work.resolve("own.sh") + "\n",
          "   StdOut=" + work.resolve("slurm-" + number + ".out") + "\n",
          "   Power=\n   \n\n"
        }) {
      assertTrue(shown.out().contains(part), part + " in " + shown.out());
    }
    TestCluster.Result update =
        cluster.runAs(
            ALICE, work, "scontrol", "update", "JobId=" + number, "TimeLimit=10", "name=renamed");
    assertEquals(0, update.exit(), update.toString());

    for (String[] attack :
        new String[][] {
          {"scontrol", "release", number},
          {"scontrol", "update", "JobId=" + number, "TimeLimit=1-0"},
          {"scontrol", "requeue", number},
          {"scancel", "-u", ALICE, number}
        }) {
      TestCluster.Result r =
          cluster.runAs(BOB, work, attack[0], Arrays.copyOfRange(attack, 1, attack.length));
      assertEquals(1, r.exit(), String.join(" ", attack) + ": " + r);
      assertTrue(r.err().contains(number), r.toString());
    }
    // an id alone is cancelled as Slurm's scancel does, unlooked: a job bob may not see is, as
    // one that does not exist, taken as done; it is not cancelled
    TestCluster.Result unseen = cluster.runAs(BOB, work, "scancel", number);
    assertEquals(0, unseen.exit(), unseen.toString());
    Job job = cluster.job(number);
    assertEquals(JobState.HELD, job.getState(), "bob's release was refused");
    assertEquals("renamed", job.getName());
    assertEquals(600, job.getResources().getWalltime(), "alice's limit, not bob's");

    TestCluster.Result release = cluster.runAs(ALICE, work, "scontrol", "release", number);
    assertEquals(0, release.exit(), release.toString());
    assertEquals(0, cluster.awaitState(number, JobState.COMPLETED).getExitStatus());
    TestCluster.Result done = cluster.runAs(ALICE, work, "scontrol", "-o", "show", "job", number);
    assertTrue(done.out().contains(" JobState=COMPLETED Reason=None "), done.out());
    assertTrue(done.out().contains(" ExitCode=0:0 "), done.out());

    // the other Slurm views of the same cluster, through the native client
    TestCluster.Result partition = cluster.runAs(ALICE, work, "scontrol", "show", "partition");
    assertTrue(partition.out().startsWith("PartitionName="), partition.toString());
    assertTrue(partition.out().contains("\n   State=UP TotalCPUs="), partition.out());
    TestCluster.Result node =
        cluster.runAs(ALICE, work, "scontrol", "-o", "show", "node", Hosts.localName());
    assertTrue(node.out().startsWith("NodeName=" + Hosts.localName() + " "), node.toString());
    TestCluster.Result shares = cluster.runAs(ALICE, work, "sshare", "-P", "-n");
    assertEquals(0, shares.exit(), shares.toString());
    assertTrue(shares.out().startsWith(" root|" + ALICE + "|1|"), shares.out());
    TestCluster.Result priorities = cluster.runAs(ALICE, work, "sprio");
    assertEquals(0, priorities.exit(), priorities.toString());
    assertTrue(
        priorities.out().startsWith("          JOBID PARTITION   PRIORITY       SITE"),
        priorities.out());
  }

  /**
   * srun inside an sbatch job on one node: the job's tasks with Slurm's ranks, labelled output, and
   * srun's exit status as Slurm's (the task's code, 128 + a signal, 1 for a step that does not
   * fit).
   */
  @Test
  void srunRunsTheJobsTasksAndExitsAsSlurmsDoes() throws IOException {
    script(
        "steps.sh",
        "#!/bin/bash\n"
            + "#SBATCH -n 2 -o steps-%j.txt\n"
            + "srun -l sh -c 'echo rank=$SLURM_PROCID local=$SLURM_LOCALID of=$SLURM_NTASKS'\n"
            + "srun -n 1 sh -c 'exit 3'; echo status=$?\n"
            + "srun -n 1 sh -c 'kill -9 $$'; echo status=$?\n"
            + "srun -n 3 true; echo status=$?\n"
            // srun's stdin goes to task 0, and task 1's ends at once
            + "printf 'one\\ntwo\\n' | srun -n 2 -l sh -c 'wc -l; echo end=$SLURM_PROCID'\n");
    TestCluster.Result r = cluster.runAs(ALICE, work, "sbatch", "--parsable", "steps.sh");
    assertEquals(0, r.exit(), r.toString());
    String number = r.out().trim();
    assertEquals(0, cluster.awaitState(number, JobState.COMPLETED).getExitStatus());
    String out = Files.readString(work.resolve("steps-" + number + ".txt"));
    for (String line :
        new String[] {
          "0: rank=0 local=0 of=2\n",
          "1: rank=1 local=1 of=2\n",
          "srun: error: " + Hosts.localName() + ": task 0: Exited with exit code 3\nstatus=3\n",
          "srun: error: " + Hosts.localName() + ": task 0: Killed\nstatus=137\n",
          "More processors requested than permitted (3 tasks, room for 2 on 1 node)\nstatus=1\n",
          "0: 2\n",
          "1: 0\n"
        }) {
      assertTrue(out.contains(line), line + " in " + out);
    }
  }

  /**
   * An array as Slurm runs one: each task with a job id of its own beside its array's id and index,
   * its own output file, its own exit code in sacct, and named by its own id in scontrol and
   * scancel.
   */
  @Test
  void anArraysTasksEachHaveAJobIdOfTheirOwn() throws IOException {
    script(
        "sweep.sh",
        "#!/bin/bash\n"
            + "#SBATCH -J sweep --array=1-5:2%2\n"
            + "echo id=$SLURM_JOB_ID array=$SLURM_ARRAY_JOB_ID task=$SLURM_ARRAY_TASK_ID"
            + " count=$SLURM_ARRAY_TASK_COUNT min=$SLURM_ARRAY_TASK_MIN max=$SLURM_ARRAY_TASK_MAX"
            + " step=$SLURM_ARRAY_TASK_STEP name=$SLURM_JOB_NAME\n"
            + "exit $((SLURM_ARRAY_TASK_ID == 5 ? 3 : 0))\n");
    TestCluster.Result r = cluster.runAs(ALICE, work, "sbatch", "--parsable", "sweep.sh");
    assertEquals(0, r.exit(), r.toString());
    long n = Long.parseLong(r.out().trim());
    // jobs that wait for the whole array: task 5 fails, so afterok never comes, afternotok does
    TestCluster.Result ok =
        cluster.runAs(
            ALICE, work, "sbatch", "--parsable", "--dependency=afterok:" + n, "--wrap=true");
    TestCluster.Result notok =
        cluster.runAs(
            ALICE, work, "sbatch", "--parsable", "--dependency=afternotok:" + n, "--wrap=true");
    assertEquals(0, ok.exit(), ok.toString());
    assertEquals(0, notok.exit(), notok.toString());
    int[] indices = {1, 3, 5};
    for (int k = 0; k < indices.length; k++) {
      cluster.awaitState(n + "[" + indices[k] + "]", JobState.COMPLETED);
      assertEquals(
          "id="
              + (n + k)
              + " array="
              + n
              + " task="
              + indices[k]
              + " count=3 min=1 max=5 step=2 name=sweep\n",
          Files.readString(work.resolve("slurm-" + n + "_" + indices[k] + ".out")));
    }
    Job never = cluster.awaitState(ok.out().trim(), JobState.COMPLETED);
    assertEquals(0, never.getStartTime(), "afterok of an array with a failed task never runs");
    assertEquals(0, cluster.awaitState(notok.out().trim(), JobState.COMPLETED).getExitStatus());
    TestCluster.Result sacct =
        cluster.runAs(
            ALICE,
            work,
            "sacct",
            "-n",
            "-P",
            "-j",
            Long.toString(n),
            "-o",
            "jobid,jobidraw,jobname,state,exitcode");
    assertEquals(
        n
            + "_1|"
            + n
            + "|sweep|COMPLETED|0:0\n"
            + n
            + "_3|"
            + (n + 1)
            + "|sweep|COMPLETED|0:0\n"
            + n
            + "_5|"
            + (n + 2)
            + "|sweep|FAILED|3:0\n",
        sacct.out(),
        sacct.toString());
    TestCluster.Result show =
        cluster.runAs(ALICE, work, "scontrol", "-o", "show", "job", Long.toString(n + 1));
    assertTrue(
        show.out().startsWith("JobId=" + (n + 1) + " ArrayJobId=" + n + " ArrayTaskId=3 "),
        show.toString());

    TestCluster.Result held =
        cluster.runAs(ALICE, work, "sbatch", "--parsable", "-H", "--array=0-2", "sweep.sh");
    assertEquals(0, held.exit(), held.toString());
    long h = Long.parseLong(held.out().trim());
    TestCluster.Result one = cluster.runAs(ALICE, work, "scancel", Long.toString(h + 1));
    assertEquals(0, one.exit(), one.toString());
    assertEquals(JobState.COMPLETED, cluster.job(h + "[1]").getState(), "its own id names it");
    assertEquals(JobState.HELD, cluster.job(h + "[2]").getState(), "and no other task");
    cluster.runAs(BOB, work, "scancel", Long.toString(h + 2));
    cluster.runAs(BOB, work, "scontrol", "release", Long.toString(h + 2));
    assertEquals(JobState.HELD, cluster.job(h + "[2]").getState(), "not by another user");
    TestCluster.Result next = cluster.runAs(ALICE, work, "sbatch", "--parsable", "sweep.sh");
    assertEquals(h + 3, Long.parseLong(next.out().trim()), "after the tasks' numbers");
    cluster.runAs(ALICE, work, "scancel", Long.toString(h));
    assertEquals(JobState.COMPLETED, cluster.job(h + "[2]").getState(), "the array's id: all");

    TestCluster.Result bad = cluster.runAs(ALICE, work, "sbatch", "--array=5-1", "sweep.sh");
    assertEquals(1, bad.exit(), bad.toString());
    assertEquals(
        "sbatch: error: Batch job submission failed: Invalid job array specification\n"
            + "sbatch: error: Bad Job Array Request '5-1': range 5-1 runs backwards (use e.g."
            + " 1-10, 1,5,7-9, 1-9:2 or 1-100%5)\n",
        bad.err());
  }

  @Test
  void whatBerthDoesNotHonourIsRefusedAndNothingIsSubmitted() throws IOException {
    script("pertask.sh", "#!/bin/sh\n#SBATCH --gpus-per-socket=1\ntrue\n");
    long before = cluster.jobs().size();
    TestCluster.Result r = cluster.runAs(ALICE, work, "sbatch", "pertask.sh");
    assertEquals(1, r.exit(), r.toString());
    assertEquals(
        "sbatch: error: --gpus-per-socket is not supported by Berth's sbatch yet (docs/slurm.md"
            + " lists what is)\n",
        r.err());
    TestCluster.Result bad = cluster.runAs(ALICE, work, "sbatch", "--bogus", "pertask.sh");
    assertEquals(255, bad.exit(), bad.toString());
    assertEquals(before, cluster.jobs().size(), "nothing submitted");
  }
}
