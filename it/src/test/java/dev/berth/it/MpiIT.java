package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.MultiNodeCluster.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Unchanged MPI job scripts on two and three mom processes with a host name each: Open MPI's mpirun
 * and MPICH's hydra, with no options as with a host file, find the job's slots and start their
 * daemons through pbs_tmrsh, so every daemon and every rank lands in the job's cgroup on its own
 * node; memory is held per node; qdel leaves nothing.
 */
@Tag("integration")
class MpiIT {
  static final String USER = TestUsers.ALICE;
  static final String THREE_NODES = "nodes=a:ppn=1+b:ppn=1+c:ppn=1";
  static final String TWO_NODES = "nodes=a:ppn=1+b:ppn=1";

  /**
   * Each rank prints where it and its parent (mpirun, orted or hydra_pmi_proxy) run, after
   * allocating and touching argv[1] MB (rank 0: a tenth), then sleeps argv[2] seconds.
   */
  static final String PROGRAM =
      """
      #include <mpi.h>
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include <unistd.h>
      static void field(long pid, const char *file, const char *key, char *out, size_t size) {
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%ld/%s", pid, file);
        FILE *f = fopen(path, "r");
        strcpy(out, "?");
        while (f && fgets(line, sizeof line, f)) {
          char *at = strstr(line, key);
          if (at) { at += strlen(key); at[strcspn(at, "\\n")] = 0; snprintf(out, size, "%s", at); break; }
        }
        if (f) fclose(f);
      }
      int main(int argc, char **argv) {
        MPI_Init(&argc, &argv);
        int rank, size;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        long mb = argc > 1 ? atol(argv[1]) : 0;
        if (rank == 0) mb /= 10;
        if (mb > 0) { char *p = malloc(mb << 20); memset(p, 1, mb << 20); }
        char host[256], cpus[256], cg[512], pname[256], pcpus[256], pcg[512];
        gethostname(host, sizeof host);
        long self = getpid(), parent = getppid();
        field(self, "status", "Cpus_allowed_list:\\t", cpus, sizeof cpus);
        field(self, "cgroup", ":cpuset:", cg, sizeof cg);
        field(parent, "status", "Name:\\t", pname, sizeof pname);
        field(parent, "status", "Cpus_allowed_list:\\t", pcpus, sizeof pcpus);
        field(parent, "cgroup", ":cpuset:", pcg, sizeof pcg);
        printf("R=%d S=%d H=%s M=%ld C=%s G=%s P=%s PC=%s PG=%s\\n",
               rank, size, host, mb, cpus, cg, pname, pcpus, pcg);
        fflush(stdout);
        int sum = 0; /* the ranks' numbers added up: they talk to each other */
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        printf("Sum at %d: %d\\n", rank, sum);
        fflush(stdout);
        if (argc > 2) sleep(atoi(argv[2]));
        MPI_Finalize();
        return 0;
      }
      """;

  /** Rank 1 aborts with 7 once every rank has started; the others would sleep ten minutes. */
  static final String ABORTING =
      """
      #include <mpi.h>
      #include <unistd.h>
      int main(int argc, char **argv) {
        MPI_Init(&argc, &argv);
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
        sleep(600);
        MPI_Finalize();
        return 0;
      }
      """;

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    JobTools.ensureOnPath();
    work = MultiNodeCluster.workFor(USER, "berth-mpi-work-");
    Files.writeString(work.resolve("mpi.c"), PROGRAM);
    // The MPI compilers come from Debian's openmpi-bin, libopenmpi-dev and mpich (ops/test).
    MultiNodeCluster.runAs(USER, work, "mpicc", "-o", "mpi", "mpi.c");
    MultiNodeCluster.runAs(USER, work, "mpicc.mpich", "-o", "mpi_mpich", "mpi.c");
    Files.writeString(work.resolve("abort.c"), ABORTING);
    MultiNodeCluster.runAs(USER, work, "mpicc.mpich", "-o", "abort_mpich", "abort.c");
    MultiNodeCluster.runAs(USER, work, "mpicc", "-o", "abort", "abort.c");
    cluster = MultiNodeCluster.threeHosts();
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
  }

  private static Job run(String script, String resources) throws IOException {
    String id =
        cluster.submitAs(USER, work, "cd $PBS_O_WORKDIR\n" + script, "-j", "oe", "-l", resources);
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(90));
  }

  private static List<Map<String, String>> ranks(Job job) {
    return output(job)
        .lines()
        .filter(l -> l.startsWith("R="))
        .map(MultiNodeCluster::fields)
        .sorted((x, y) -> x.get("R").compareTo(y.get("R")))
        .toList();
  }

  /**
   * One rank on each of {@code hosts} in order, each with its parent daemon in the job's cgroup on
   * that node, with the node's CPUs.
   */
  private static void assertIsolated(Job job, String daemon, List<String> hosts) {
    assertEquals(0, job.getExitStatus(), output(job));
    List<Map<String, String>> ranks = ranks(job);
    assertEquals(hosts.size(), ranks.size(), output(job));
    Map<String, String> cpus =
        job.getExecNodesList().stream()
            .collect(
                Collectors.toMap(NodeAllocation::getNode, a -> TaskIT.ranges(a.getCpusList())));
    for (Map<String, String> r : ranks) {
      String host = hosts.get(Integer.parseInt(r.get("R")));
      String cgroup = "/" + cluster.cgroupRoot + "/" + host + "/" + job.getId();
      assertEquals(host, r.get("H"), "rank " + r);
      assertEquals(Integer.toString(hosts.size()), r.get("S"));
      assertEquals(cpus.get(host), r.get("C"), "the rank's CPUs: " + r);
      assertTrue(r.get("G").endsWith(cgroup), "the rank's cgroup: " + r);
      if (!host.equals("a") || daemon.equals("hydra_pmi_proxy")) {
        assertEquals(daemon, r.get("P"), "started by the MPI daemon: " + r);
      }
      assertEquals(cpus.get(host), r.get("PC"), "the daemon's CPUs: " + r);
      assertTrue(r.get("PG").endsWith(cgroup), "the daemon's cgroup: " + r);
    }
  }

  /** What Torque users type: no host file, no rank count; one rank per slot of the job. */
  @Test
  void openMpiWithoutOptionsRunsARankOnEverySlotOfTheJob() throws Exception {
    Job job = run("mpirun ./mpi\n", THREE_NODES);
    assertIsolated(job, "orted", List.of("a", "b", "c"));
  }

  @Test
  void mpichWithoutOptionsRunsARankOnEverySlotOfTheJob() throws Exception {
    Job job = run("mpirun.mpich ./mpi_mpich\n", THREE_NODES);
    assertIsolated(job, "hydra_pmi_proxy", List.of("a", "b", "c"));
  }

  /**
   * A Slurm user's batch script: sbatch's job carries Slurm's variables, which each MPI would take
   * for a Slurm allocation and start its daemons in with srun; mpirun with no options still starts
   * a rank on each of its nodes, through their moms, in the job's cgroup there.
   */
  @Test
  void openMpiInAnSbatchJobRunsARankOnEveryTask() throws Exception {
    Job job = sbatch("mpirun ./mpi\n");
    assertIsolated(job, "orted", List.of("a", "b", "c"));
  }

  @Test
  void mpichInAnSbatchJobRunsARankOnEveryTask() throws Exception {
    Job job = sbatch("mpirun.mpich ./mpi_mpich\n");
    assertIsolated(job, "hydra_pmi_proxy", List.of("a", "b", "c"));
  }

  /**
   * srun in an sbatch job: a task on each node of the step, in the job's cgroup there, with Slurm's
   * ranks, its output labelled on srun's own.
   */
  @Test
  void srunInAnSbatchJobRunsATaskOnEveryNodeInTheJobsCgroup() throws Exception {
    Job job =
        sbatch(
            "srun -l sh -c 'echo H=$(hostname) P=$SLURM_PROCID L=$SLURM_LOCALID"
                + " N=$SLURM_NODEID T=$SLURM_NTASKS S=$SLURM_STEP_NODELIST"
                + " G=$(grep :cpuset: /proc/self/cgroup | cut -d: -f3)'\n");
    assertEquals(0, job.getExitStatus(), output(job));
    List<String> hosts = List.of("a", "b", "c");
    for (int rank = 0; rank < 3; rank++) {
      String host = hosts.get(rank);
      String line =
          rank
              + ": H="
              + host
              + " P="
              + rank
              + " L=0 N="
              + rank
              + " T=3 S=a,b,c G=/"
              + cluster.cgroupRoot
              + "/"
              + host
              + "/"
              + job.getId()
              + "\n";
      assertTrue(output(job).contains(line), line + " in " + output(job));
    }
  }

  private static Job sbatch(String command) throws IOException {
    return sbatch("-N 3 -n 3", command);
  }

  private static Job sbatch(String allocation, String command) throws IOException {
    String id =
        cluster.sbatchAs(
            USER,
            work,
            "#!/bin/bash\n#SBATCH "
                + allocation
                + " -o sbatch-mpi-"
                + System.nanoTime()
                + ".out\n"
                + command);
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(90));
  }

  /**
   * Slurm users' {@code srun ./mpi_program}: MPICH's ranks started by srun are one MPI job, on two
   * and on three nodes, through the PMI-1 srun serves its step, each rank in the job's cgroup on
   * its node.
   */
  @Test
  void srunStartsMpichsRanksAsOneMpiJob() throws Exception {
    List<String> hosts = List.of("a", "b", "c");
    for (int nodes = 2; nodes <= 3; nodes++) {
      // as Slurm users write it for MPICH too: --mpi=pmi2 (Slurm's pmi2 serves PMI-1 clients)
      String mpi = nodes == 2 ? " --mpi=pmi2" : "";
      Job job = sbatch("srun" + mpi + " -N " + nodes + " -n " + nodes + " ./mpi_mpich\n");
      assertOneMpiJob(job, hosts.subList(0, nodes));
    }
  }

  /**
   * The job's ranks are one MPI job, rank r on {@code hosts.get(r)} in the job's cgroup there: each
   * knows the job's size and got the sum of every rank's number.
   */
  private static void assertOneMpiJob(Job job, List<String> hosts) {
    int tasks = hosts.size();
    assertEquals(0, job.getExitStatus(), output(job));
    List<Map<String, String>> ranks = ranks(job);
    assertEquals(tasks, ranks.size(), output(job));
    for (int r = 0; r < tasks; r++) {
      Map<String, String> rank = ranks.get(r);
      assertEquals(Integer.toString(r), rank.get("R"), output(job));
      assertEquals(Integer.toString(tasks), rank.get("S"), "one MPI job: " + output(job));
      String sum = "Sum at " + r + ": " + tasks * (tasks - 1) / 2 + "\n";
      assertTrue(output(job).contains(sum), sum + " in " + output(job));
      assertEquals(hosts.get(r), rank.get("H"), output(job));
      String cgroup = "/" + cluster.cgroupRoot + "/" + hosts.get(r) + "/" + job.getId();
      assertTrue(rank.get("G").endsWith(cgroup), "the rank's cgroup: " + rank);
    }
  }

  /**
   * The same for Open MPI, whose ranks take PMIx only: srun serves its step PMIx too (with or
   * without {@code --mpi=pmix}), so the ranks are one MPI job, on two and on three nodes, two of
   * them sharing node a (shared memory between them, TCP to the others).
   */
  @Test
  void srunStartsOpenMpisRanksAsOneMpiJob() throws Exception {
    List<String> hosts = List.of("a", "a", "b", "c");
    for (int nodes = 2; nodes <= 3; nodes++) {
      int tasks = nodes + 1;
      String mpi = nodes == 2 ? " --mpi=pmix" : "";
      Job job = sbatch("-N " + nodes + " -n " + tasks, "srun" + mpi + " ./mpi\n");
      assertOneMpiJob(job, hosts.subList(0, tasks));
    }
  }

  /** A rank's MPI_Abort ends the step: srun ends the other ranks, and the job ends failed. */
  @Test
  void anMpiAbortEndsTheWholeStep() throws Exception {
    Job job = sbatch("srun -N 3 -n 3 ./abort_mpich\n");
    assertNotEquals(0, job.getExitStatus(), output(job));
    assertTrue(output(job).contains("MPI_Abort(MPI_COMM_WORLD, 7)"), output(job));
    job = sbatch("srun -N 3 -n 3 ./abort\n");
    assertNotEquals(0, job.getExitStatus(), output(job));
    assertTrue(output(job).contains("with errorcode 7"), output(job));
  }

  /**
   * The step's PMI port answers only its own tasks: a connection that names another PMI_ID than a
   * task's is closed unanswered, as an ordinary user trying the port would find; the task's own is
   * welcomed.
   */
  @Test
  void srunsPmiPortAnswersOnlyTheStepsTasks() throws Exception {
    Job job =
        sbatch(
            "srun -n 1 bash -c 'at=/dev/tcp/${PMI_PORT%:*}/${PMI_PORT#*:};"
                + " exec 3<>$at; echo \"cmd=initack pmiid=$((PMI_ID ^ 1))\" >&3;"
                + " echo \"stranger=$(timeout 20 cat <&3)\";"
                + " exec 4<>$at; echo \"cmd=initack pmiid=$PMI_ID\" >&4;"
                + " read -t 20 line <&4; echo \"task=$line\"'\n");
    String out = output(job);
    assertTrue(out.contains("stranger=\n"), out);
    assertTrue(out.contains("task=cmd=initack\n"), out);
  }

  /**
   * srun's PMIx door lets strangers neither in nor in the way: with a connection that sent garbage
   * and one that says nothing held open on it, and one that says nothing on every port listening on
   * srun's node's loopback (where libpmix's own listener is, whose handshake read would wait on
   * it), as an ordinary user trying them would, the step's ranks still form their MPI job.
   */
  @Test
  void strangersOnSrunsPmixPortDoNotStopTheStep() throws Exception {
    Job job =
        sbatch(
            "srun -N 3 -n 3 bash -c 'if [ $SLURM_PROCID = 0 ]; then"
                + " u=${PMIX_SERVER_URI41#*tcp4://}; at=/dev/tcp/${u%:*}/${u#*:};"
                + " exec 3<>$at; head -c 65536 /dev/urandom >&3; exec 4<>$at;"
                + " while read -r _ local _ state _; do"
                + " [ $state = 0A ] && [ ${local%:*} = 0100007F ] &&"
                + " exec {fd}<>/dev/tcp/127.0.0.1/$((16#${local#*:})) && echo silent on $fd;"
                + " done < /proc/net/tcp; fi; exec ./mpi'\n");
    assertTrue(output(job).contains("silent on "), "libpmix's listener tried: " + output(job));
    assertEquals(0, job.getExitStatus(), output(job));
    List<Map<String, String>> ranks = ranks(job);
    assertEquals(3, ranks.size(), output(job));
    assertEquals("3", ranks.get(0).get("S"), output(job));
  }

  /** Scripts written for a host file work as before. */
  @Test
  void openMpiWithTheNodefileAsItsHostFile() throws Exception {
    Job job = run("mpirun --hostfile $PBS_NODEFILE ./mpi\n", TWO_NODES);
    assertIsolated(job, "orted", List.of("a", "b"));
  }

  /** -np N fills the job's slots in nodefile order; more than there are is Open MPI's refusal. */
  @Test
  void openMpiRankCountsUpToTheJobsSlotsAndNoMore() throws Exception {
    assertIsolated(run("mpirun -np 2 ./mpi\n", TWO_NODES), "orted", List.of("a", "b"));
    assertIsolated(run("mpirun -np 1 ./mpi\n", TWO_NODES), "orted", List.of("a"));
    Job over = run("mpirun -np 3 ./mpi\n", TWO_NODES);
    assertNotEquals(0, over.getExitStatus(), output(over));
    assertTrue(output(over).contains("There are not enough slots available"), output(over));
    assertEquals(List.of(), ranks(over), "no rank started");
  }

  @Test
  void mpichRankCountsOnTwoNodes() throws Exception {
    assertIsolated(
        run("mpirun.mpich -np 2 ./mpi_mpich\n", TWO_NODES), "hydra_pmi_proxy", List.of("a", "b"));
  }

  /**
   * The seed's experiment with MPI, with no host file: pmem=60mb, ranks on the sisters touch 100 MB
   * and are killed in their node's cgroup, rank 0 touches 10 MB and gets through; the job says
   * which nodes.
   */
  @Test
  void ranksOverTheLimitAreKilledOnTheirNodeAndReported() throws Exception {
    Job job = run("mpirun ./mpi 100\n", THREE_NODES + ",pmem=60mb");
    assertOnlyRankZeroLived(job);
    assertTrue(job.getComment().contains("killed on b"), job.getComment());
    assertTrue(job.getComment().contains("killed on c"), job.getComment());
    assertTrue(job.getResourcesUsed().getOomKills() >= 2, job.getResourcesUsed().toString());
  }

  @Test
  void aRankOverTheLimitOnTwoNodesIsKilledOnItsNodeAndReported() throws Exception {
    Job job = run("mpirun ./mpi 100\n", TWO_NODES + ",pmem=60mb");
    assertOnlyRankZeroLived(job);
    assertTrue(job.getComment().contains("killed on b"), job.getComment());
    assertTrue(!job.getComment().contains("killed on a"), job.getComment());
    assertTrue(job.getResourcesUsed().getOomKills() >= 1, job.getResourcesUsed().toString());
  }

  private static void assertOnlyRankZeroLived(Job job) {
    List<Map<String, String>> ranks = ranks(job);
    assertEquals(List.of("0"), ranks.stream().map(r -> r.get("R")).toList(), output(job));
    assertEquals("10", ranks.get(0).get("M"), "rank 0 stayed under the limit");
    assertNotEquals(0, job.getExitStatus());
  }

  /** The commands and the job tools are on a job's PATH, although its login shell set PATH anew. */
  @Test
  void theCommandsAndToolsAreOnTheJobsPath() throws Exception {
    String id =
        cluster.submitAs(
            USER,
            work,
            "for c in pbsdsh pbs_tmrsh qsub qstat qdel; do command -v $c; done\n"
                + "qstat $PBS_JOBID >/dev/null && echo qstat ok\n"
                + "pbsdsh -u hostname | sort\n",
            "-j",
            "oe",
            "-l",
            TWO_NODES,
            "-v",
            "BERTH_SERVER=" + cluster.socket);
    Job job = cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
    assertEquals(0, job.getExitStatus(), output(job));
    assertEquals(
        "/usr/local/bin/pbsdsh\n/usr/local/bin/pbs_tmrsh\n/usr/local/bin/qsub\n"
            + "/usr/local/bin/qstat\n/usr/local/bin/qdel\nqstat ok\na\nb\n",
        output(job));
  }

  @Test
  void qdelLeavesNoRankOrOrtedOnAnyNode() throws Exception {
    qdelLeavesNothing("mpirun --hostfile $PBS_NODEFILE ./mpi 0 3601", "orted", "-mca", 2);
  }

  @Test
  void qdelLeavesNoRankOrHydraProxyOnAnyNode() throws Exception {
    qdelLeavesNothing(
        "mpirun.mpich --hostfile $PBS_NODEFILE ./mpi_mpich 0 3602",
        "hydra_pmi_proxy",
        "--control-port",
        3);
  }

  /**
   * qdel of a running MPI job: within 5 s no process that names the job's sleep (launcher, ranks,
   * their starters) and no MPI daemon is left on any node, and the job's cgroups are gone.
   */
  private void qdelLeavesNothing(String launch, String daemon, String daemonArgument, int daemons)
      throws Exception {
    String marker = launch.substring(launch.lastIndexOf(' ') - 1);
    String id =
        cluster.submitAs(
            USER, work, "cd $PBS_O_WORKDIR\n" + launch + "\n", "-j", "oe", "-l", THREE_NODES);
    Job running = cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
    awaitTrue(() -> ranks(running).size() == 3, Duration.ofSeconds(30));
    // Other test classes' MPI jobs may run beside this one: the daemons counted are this
    // cluster's, and a daemon outside the job's cgroups would leave the count short.
    List<Long> jobDaemons =
        Processes.inCgroup(Processes.running(daemon, daemonArgument), cluster.cgroupRoot);
    assertEquals(daemons, jobDaemons.size(), daemon + " in the job's cgroups");
    long before = System.currentTimeMillis();
    assertEquals(0, cluster.cli("qdel", id).exit());
    awaitTrue(
        () ->
            Processes.matching(marker).isEmpty()
                && Processes.alive(jobDaemons).isEmpty()
                && !cluster.hasCgroups(id),
        Duration.ofSeconds(5),
        () -> Processes.matching(marker) + " " + Processes.alive(jobDaemons));
    assertTrue(System.currentTimeMillis() - before <= 5000);
    cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(20));
  }
}
