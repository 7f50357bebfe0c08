package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static dev.berth.it.MultiNodeCluster.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tasks through the task manager on three mom processes, each with a host name of its own: where
 * pbsdsh's tasks run (-c, -n, -h, -u, -s), that each is inside the job's cgroup on its node with
 * the node's CPUs of the job, that their output and exit status come back, and the seed's memory
 * experiment on two nodes.
 */
@Tag("integration")
class TaskIT {
  static final String USER = TestUsers.ALICE;

  /** One line per task: task, node index, vnode, host, CPUs, cpuset cgroup. */
  static final String WHERE =
      "pbsdsh %s sh -c 'echo T=$PBS_TASKNUM N=$PBS_NODENUM V=$PBS_VNODENUM H=$(hostname)"
          + " C=$(grep Cpus_allowed_list /proc/self/status | cut -f2)"
          + " G=$(grep :cpuset: /proc/self/cgroup | cut -d: -f3)'\n";

  static MultiNodeCluster cluster;
  static Path work;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    JobTools.ensureOnPath();
    cluster = MultiNodeCluster.threeHosts();
    work = MultiNodeCluster.workFor(USER, "berth-task-work-");
    Files.writeString(
        work.resolve("eat.c"),
        """
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        int main(int argc, char **argv) {
          long mb = atol(argv[1]);
          char host[256];
          gethostname(host, sizeof host);
          char *p = malloc(mb << 20);
          memset(p, 1, mb << 20);
          printf("ate %ld MB on %s\\n", mb, host);
          return 0;
        }
        """);
    MultiNodeCluster.runAs(USER, work, "gcc", "-O0", "-o", "eat", "eat.c");
  }

  @AfterEach
  void deleteLeftovers() {
    cluster.deleteUnfinished();
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
    JobFiles.removeTree(work);
  }

  private static final String FOUR_SLOTS = "nodes=a:ppn=2+b:ppn=1+c:ppn=1";

  /** Submits as the test user, waits for the job to complete, returns it. */
  private static Job run(String script, String... args) throws IOException {
    List<String> argv = new ArrayList<>(List.of("-j", "oe"));
    argv.addAll(List.of(args));
    String id =
        cluster.submitAs(USER, work, "cd $PBS_O_WORKDIR\n" + script, argv.toArray(String[]::new));
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(60));
  }

  /** The output lines that start with {@code prefix}. */
  private static List<String> lines(Job job, String prefix) {
    return output(job).lines().filter(l -> l.startsWith(prefix)).toList();
  }

  private static List<String> hosts(Job job) {
    return lines(job, "T=").stream()
        .map(l -> MultiNodeCluster.fields(l).get("H"))
        .sorted()
        .toList();
  }

  @Test
  void oneTaskPerSlotEachInTheJobsCgroupOnItsNodeWithItsCpus() throws Exception {
    Job job = run(String.format(WHERE, ""), "-l", FOUR_SLOTS);
    assertEquals(0, job.getExitStatus(), output(job));
    List<String> lines = lines(job, "T=");
    assertEquals(4, lines.size(), output(job));
    Map<String, String> cpus =
        job.getExecNodesList().stream()
            .collect(Collectors.toMap(NodeAllocation::getNode, a -> ranges(a.getCpusList())));
    List<String> nodes = List.of("a", "b", "c");
    List<String> vnodeHosts = List.of("a", "a", "b", "c");
    for (String line : lines) {
      Map<String, String> f = MultiNodeCluster.fields(line);
      int vnode = Integer.parseInt(f.get("V"));
      String host = vnodeHosts.get(vnode);
      assertEquals(host, f.get("H"), line);
      assertEquals(nodes.get(Integer.parseInt(f.get("N"))), host, line);
      assertEquals(cpus.get(host), f.get("C"), "the task's CPUs are the job's on " + host);
      assertTrue(
          f.get("G").endsWith("/" + cluster.cgroupRoot + "/" + host + "/" + job.getId()),
          "in the job's cgroup on " + host + ": " + line);
      assertTrue(Integer.parseInt(f.get("T")) >= 2, "tasks are numbered after the script");
    }
    assertEquals(
        List.of("0", "1", "2", "3"),
        lines.stream().map(l -> MultiNodeCluster.fields(l).get("V")).sorted().toList(),
        "one task per slot");
  }

  @Test
  void copiesGoRoundTheSlots() throws Exception {
    Job job = run(String.format(WHERE, "-c 6"), "-l", FOUR_SLOTS);
    assertEquals(List.of("a", "a", "a", "a", "b", "c"), hosts(job), output(job));
  }

  @Test
  void nodeIndexAndHostNamePickOneSlot() throws Exception {
    Job job = run(String.format(WHERE, "-n 2") + String.format(WHERE, "-h c"), "-l", FOUR_SLOTS);
    List<String> lines = lines(job, "T=");
    assertEquals(2, lines.size(), output(job));
    assertEquals("b", MultiNodeCluster.fields(lines.get(0)).get("H"), "-n 2 is the third slot");
    assertEquals("2", MultiNodeCluster.fields(lines.get(0)).get("V"));
    assertEquals("c", MultiNodeCluster.fields(lines.get(1)).get("H"), "-h c");
  }

  @Test
  void uniqueRunsOncePerNode() throws Exception {
    Job job = run(String.format(WHERE, "-u"), "-l", FOUR_SLOTS);
    assertEquals(List.of("a", "b", "c"), hosts(job), output(job));
  }

  @Test
  void sequentialStartsEachTaskAfterThePreviousHasEnded() throws Exception {
    Job job =
        run(
            "pbsdsh -s sh -c 'echo S $PBS_VNODENUM $(date +%s%N); sleep 0.3;"
                + " echo E $PBS_VNODENUM $(date +%s%N)'\n",
            "-l", FOUR_SLOTS);
    List<String> marks =
        output(job).lines().filter(l -> l.startsWith("S ") || l.startsWith("E ")).toList();
    assertEquals(8, marks.size(), output(job));
    long lastEnd = 0;
    for (int vnode = 0; vnode < 4; vnode++) {
      String[] start = marks.get(2 * vnode).split(" ");
      String[] end = marks.get(2 * vnode + 1).split(" ");
      assertEquals(List.of("S", "" + vnode), List.of(start[0], start[1]), marks.toString());
      assertEquals(List.of("E", "" + vnode), List.of(end[0], end[1]), marks.toString());
      assertTrue(Long.parseLong(start[2]) >= lastEnd, "task " + vnode + " waited: " + marks);
      lastEnd = Long.parseLong(end[2]);
    }
  }

  @Test
  void theWorstTaskStatusIsPbsdshsAndSignalsAreReported() throws Exception {
    Job job =
        run(
            "pbsdsh sh -c 'exit $PBS_VNODENUM'; echo status=$?\n"
                + "pbsdsh -n 3 sh -c 'kill -TERM $$'; echo status=$?\n",
            "-l",
            FOUR_SLOTS);
    assertEquals(List.of("status=3", "status=143"), lines(job, "status="), output(job));
    assertTrue(
        output(job).contains("on c was killed by signal 15"),
        "a signalled task is named with its node: " + output(job));
  }

  @Test
  void withoutObitWaitTasksOutliveTheCallAndWriteToTheJobsOutput() throws Exception {
    Job job =
        run(
            "pbsdsh -o sh -c 'sleep 1; echo late from $(hostname)'; echo returned $?\nsleep 4\n",
            "-l",
            "nodes=b:ppn=1+c:ppn=1");
    String out = output(job);
    assertTrue(out.startsWith("returned 0\n"), out);
    assertEquals(
        List.of("late from b", "late from c"), lines(job, "late").stream().sorted().toList(), out);
  }

  /**
   * The seed's experiment: pmem=60mb on two nodes, a process on each that allocates and touches 100
   * MB is OOM-killed in its node's job cgroup and reported, one that stays under runs.
   */
  @Test
  void eachNodeHoldsItsTasksToTheJobsMemoryLimit() throws Exception {
    Job job =
        run(
            "pbsdsh ./eat 100; echo status=$?\npbsdsh ./eat 30; echo status=$?\n",
            "-l",
            "nodes=b:ppn=1+c:ppn=1,pmem=60mb");
    String out = output(job);
    assertEquals(List.of("status=137", "status=0"), lines(job, "status="), out);
    assertTrue(out.contains("on b was killed by signal 9"), out);
    assertTrue(out.contains("on c was killed by signal 9"), out);
    assertEquals(
        List.of("ate 30 MB on b", "ate 30 MB on c"),
        lines(job, "ate").stream().sorted().toList(),
        out);
    assertTrue(job.getComment().contains("killed on b"), job.getComment());
    assertTrue(job.getComment().contains("killed on c"), job.getComment());
    assertTrue(out.contains("=>> PBS: memory: 1 process was killed on c"), out);
    assertTrue(job.getResourcesUsed().getOomKills() >= 2, job.getResourcesUsed().toString());
  }

  @Test
  void whatTasksUseOnASisterCountsInTheJobsResourcesUsed() throws Exception {
    Job job =
        run(
            // Busy until the task's own user CPU time (field 14 of its stat, in 1/100 s) reaches
            // 3 s: a loop timed by the wall clock got less than 2 s of CPU on a loaded machine.
            "pbsdsh -n 1 sh -c 'while :; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done;"
                + " set -- $(cat /proc/$$/stat); [ ${14} -ge 300 ] && exit 0; done'\n",
            "-l",
            "nodes=b:ppn=1+c:ppn=1");
    assertEquals(0, job.getExitStatus(), output(job));
    assertTrue(
        job.getResourcesUsed().getCput() >= 2,
        "three seconds of CPU on c: " + job.getResourcesUsed());
  }

  @Test
  void qdelEndsTasksOnEveryNodeWithinFiveSeconds() throws Exception {
    for (boolean cgroups : new boolean[] {true, false}) {
      cluster.qmgr("set server cgroup_enable = " + (cgroups ? "True" : "False"));
      String marker = cgroups ? "3091" : "3092";
      String id =
          cluster.submitAs(
              USER,
              work,
              "pbsdsh sleep " + marker + "\n",
              "-l",
              "nodes=b:ppn=1+c:ppn=1",
              "-j",
              "oe");
      Job job = cluster.await(id, j -> j.getStartTime() > 0, Duration.ofSeconds(30));
      awaitTrue(
          () -> Processes.running("sleep", marker).size() == 2,
          Duration.ofSeconds(15),
          () -> Processes.matching(marker) + " " + output(job));
      long before = System.currentTimeMillis();
      assertEquals(0, cluster.cli("qdel", id).exit());
      awaitTrue(
          () -> Processes.running("sleep", marker).isEmpty() && !cluster.hasCgroups(id),
          Duration.ofSeconds(5));
      assertTrue(System.currentTimeMillis() - before <= 5000);
      cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(20));
    }
    cluster.qmgr("set server cgroup_enable = True");
  }

  /** A CPU list as the kernel prints it: {@code 0-1}, {@code 3}. */
  static String ranges(List<Integer> cpus) {
    List<String> parts = new ArrayList<>();
    List<Integer> sorted = cpus.stream().sorted().toList();
    for (int i = 0; i < sorted.size(); ) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      parts.add(i == j ? "" + sorted.get(i) : sorted.get(i) + "-" + sorted.get(j));
      i = j + 1;
    }
    return String.join(",", parts);
  }
}
