package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Jobs confined by the mom's cgroup v2 driver where cgroup v2 has its controllers, as on a site
 * that runs v2 only. This host's kernel binds its controllers to cgroup v1, so {@link RealKernelIT}
 * runs this class in a guest with a kernel of its own and /sys/fs/cgroup as the only hierarchy (the
 * name does not end in IT: the host's runs pass it over). A server and two moms as separate
 * processes, a and b, each offering CPUs 0-1 with cgroups chosen as a site's would be ({@code
 * auto}), below the moms' own cgroup; a has two stand-in GPUs (195:230 and 195:231, which no driver
 * serves: opening one gives ENXIO where the job's device program lets it through, EPERM where it
 * denies it). Every job's cgroup must be gone once the job is.
 */
class CgroupV2Jobs {
  static final String USER = TestUsers.ALICE;
  static final Path CGROUPS = Path.of("/sys/fs/cgroup");
  static final Duration SLOW = Duration.ofMinutes(3); // emulated guests run ~20-50x slower
  static final String ALLOWED = "No such device or address";
  static final String DENIED = "Operation not permitted";
  static final long MIB = 1 << 20;

  /** Each rank: its rank and size, its cgroup, its CPUs, and the sum of all ranks' numbers. */
  static final String RANKS =
      """
      #include <mpi.h>
      #include <stdio.h>
      #include <string.h>
      static void line(const char *file, const char *key, char *out, size_t size) {
        char l[512];
        FILE *f = fopen(file, "r");
        strcpy(out, "?");
        while (f && fgets(l, sizeof l, f)) {
          if (strncmp(l, key, strlen(key)) == 0) {
            l[strcspn(l, "\\n")] = 0;
            snprintf(out, size, "%s", l + strlen(key));
            break;
          }
        }
        if (f) fclose(f);
      }
      int main(int argc, char **argv) {
        MPI_Init(&argc, &argv);
        int rank, size, sum = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        char cg[512], cpus[256];
        line("/proc/self/cgroup", "0::", cg, sizeof cg);
        line("/proc/self/status", "Cpus_allowed_list:\\t", cpus, sizeof cpus);
        printf("rank=%d size=%d sum=%d cg=%s cpus=%s\\n", rank, size, sum, cg, cpus);
        MPI_Finalize();
        return 0;
      }
      """;

  static MultiNodeCluster cluster;
  static Path work;
  static Path dev;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(
        Files.exists(CGROUPS.resolve("cgroup.controllers"))
            && Files.readString(CGROUPS.resolve("cgroup.controllers")).contains("memory"),
        "/sys/fs/cgroup is not a cgroup v2 hierarchy with controllers here: RealKernelIT runs"
            + " this class in a guest that has one");
    TestUsers.ensure(USER);
    work = MultiNodeCluster.workFor(USER, "berth-v2-work-");
    dev = Files.createTempDirectory(Path.of("/tmp"), "berth-v2-gpus-");
    Files.setPosixFilePermissions(dev, PosixFilePermissions.fromString("rwxr-xr-x"));
    List<String> gpus = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Path gpu = dev.resolve("nvidia" + i);
      TestCluster.Result made =
          TestCluster.exec(
              dev,
              List.of("mknod", "-m", "666", gpu.toString(), "c", "195", Integer.toString(230 + i)));
      assertEquals(0, made.exit(), made.toString());
      gpus.add(gpu.toString());
    }
    Files.writeString(work.resolve("ranks.c"), RANKS);
    cluster = MultiNodeCluster.start();
    cluster.launchMom("a", "0-1", "--gpus", String.join(",", gpus));
    cluster.launchMom("b", "0-1");
    // compiled while the moms start
    MultiNodeCluster.runAs(USER, work, "mpicc", "-o", "ranks", "ranks.c");
    cluster.awaitNode("a", "free");
    cluster.awaitNode("b", "free");
    cluster.qmgr("set server cgroup_enable = True");
    cluster.qmgr("create queue express queue_type=e,preemptor=true,enabled=true,started=true");
    cluster.qmgr(
        "create queue scavenger queue_type=e,preempt_mode=suspend,enabled=true,started=true");
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
    if (work != null) {
      JobFiles.removeTree(work);
      JobFiles.removeTree(dev);
    }
  }

  /** The job's cgroup on {@code node}: below the mom's own cgroup, its root, the node. */
  private static Path jobDir(String node, String id) {
    return CGROUPS.resolve(cluster.cgroupRoot).resolve(node).resolve(id);
  }

  private static String submit(String script, String resources) throws IOException {
    return cluster.submitAs(USER, work, script, "-l", resources);
  }

  private static Job awaitEnd(String id) {
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, SLOW);
  }

  /** A job's cgroups go with it, on every node it had. */
  private static void assertNoCgroupLeft(String id, String... nodes) {
    for (String node : nodes) {
      Path dir = jobDir(node, id);
      awaitTrue(() -> !Files.exists(dir), Duration.ofSeconds(30), () -> dir + " is still there");
    }
  }

  private static Map<String, String> fields(String line) {
    return new TreeMap<>(MultiNodeCluster.fields(line.strip()));
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Two one-CPU jobs on a node at once each get a CPU of their own, in a cgroup of their own below
   * the mom's, which holds no process itself (cgroup v2's rule for a node with controllers).
   */
  @Test
  void twoJobsOnANodeGetACpuEachInCgroupsOfTheirOwn() throws Exception {
    String report =
        "echo \"cg=$(sed -n 's/^0:://p' /proc/self/cgroup)"
            + " cpus=$(sed -n 's/^Cpus_allowed_list:\\t//p' /proc/self/status)\""
            + " > "
            + work
            + "/cpus-$PBS_JOBID\n"
            + "while [ ! -e "
            + work
            + "/go ]; do sleep 0.2; done\n";
    String first = submit(report, "nodes=a:ppn=1");
    String second = submit(report, "nodes=a:ppn=1");
    Path firstOut = work.resolve("cpus-" + first);
    Path secondOut = work.resolve("cpus-" + second);
    awaitTrue(
        () -> !read(firstOut).isEmpty() && !read(secondOut).isEmpty(),
        SLOW,
        () -> "both jobs report: " + cluster.job(first) + cluster.job(second));
    Map<String, String> one = fields(read(firstOut));
    Map<String, String> two = fields(read(secondOut));
    String base = "/" + cluster.cgroupRoot + "/a/";
    assertEquals(base + first, one.get("cg"));
    assertEquals(base + second, two.get("cg"));
    assertTrue(Set.of("0", "1").contains(one.get("cpus")), one.toString());
    assertTrue(Set.of("0", "1").contains(two.get("cpus")), two.toString());
    assertNotEquals(one.get("cpus"), two.get("cpus"));
    assertEquals(
        one.get("cpus"), Files.readString(jobDir("a", first).resolve("cpuset.cpus")).strip());
    assertEquals(
        "", Files.readString(jobDir("a", first).getParent().resolve("cgroup.procs")).strip());
    Files.writeString(work.resolve("go"), "");
    assertEquals(0, awaitEnd(first).getExitStatus());
    assertEquals(0, awaitEnd(second).getExitStatus());
    assertNoCgroupLeft(first, "a");
    assertNoCgroupLeft(second, "a");
  }

  /**
   * memory.max per node: pmem=60mb, the task on b takes 100 MB and the kernel kills it in b's job
   * cgroup; the one on a takes 10 MB and goes on. The job says which node, as on cgroup v1.
   */
  @Test
  void aTaskOverItsMemoryIsKilledOnItsNodeAndTheJobSaysWhere() throws Exception {
    String script =
        "pbsdsh /bin/sh -c '"
            + "if [ $PBS_VNODENUM = 1 ]; then mb=100; else mb=10; fi;"
            + " perl -e \"\\$x = q(x) x ($mb << 20); print qq(node $PBS_VNODENUM kept $mb MB\\n)\"'"
            + "\n";
    String id = submit(script, "nodes=a:ppn=1+b:ppn=1,pmem=60mb");
    Job job = awaitEnd(id);
    String out = MultiNodeCluster.output(job);
    assertTrue(out.contains("node 0 kept 10 MB"), out);
    assertFalse(out.contains("node 1 kept"), out);
    assertTrue(job.getComment().contains("killed on b"), job.getComment());
    assertFalse(job.getComment().contains("killed on a"), job.getComment());
    assertTrue(job.getResourcesUsed().getOomKills() >= 1, job.getResourcesUsed().toString());
    assertNoCgroupLeft(id, "a", "b");
  }

  /** io.stat: what a job reads from and writes to a disk (the guest's /var/tmp) is counted. */
  @Test
  void aJobsDiskReadsAndWritesAreCounted() throws Exception {
    String file = "/var/tmp/berth-v2-$PBS_JOBID";
    String script =
        "dd if=/dev/zero of="
            + file
            + " bs=1M count=16 oflag=direct status=none\n"
            + "dd if="
            + file
            + " of=/dev/null bs=1M iflag=direct status=none\n"
            + "rm "
            + file
            + "\n";
    String id = submit(script, "nodes=a:ppn=1");
    Job job = awaitEnd(id);
    assertEquals(0, job.getExitStatus(), MultiNodeCluster.output(job));
    assertTrue(job.getResourcesUsed().getIoWrite() >= 16 * MIB, job.getResourcesUsed().toString());
    assertTrue(job.getResourcesUsed().getIoRead() >= 16 * MIB, job.getResourcesUsed().toString());
    assertNoCgroupLeft(id, "a");
  }

  /**
   * A job of a queue whose jobs are suspended for a preemptor's (preempt_mode suspend) is frozen in
   * its cgroup (cgroup.freeze; the kernel's cgroup.events says when every process is), and thawed
   * once the preemptor's job has ended.
   */
  @Test
  void aPreemptedJobIsFrozenInItsCgroupAndThawedAfter() throws Exception {
    Path ticks = work.resolve("ticks");
    String victim =
        cluster.submitAs(
            USER,
            work,
            "while :; do echo tick >> " + ticks + "; sleep 0.2; done\n",
            "-q",
            "scavenger",
            "-l",
            "nodes=b:ppn=2");
    awaitTrue(() -> !read(ticks).isEmpty(), SLOW, () -> "the job ticks: " + cluster.job(victim));
    Path dir = jobDir("b", victim);
    Path release = work.resolve("release");
    String urgent =
        cluster.submitAs(
            USER,
            work,
            "until [ -e " + release + " ]; do sleep 0.2; done\n",
            "-q",
            "express",
            "-l",
            "nodes=b:ppn=2");
    Job frozen = cluster.await(victim, Job::getSuspendConfirmed, SLOW);
    assertEquals(urgent, frozen.getSuspendedFor());
    // confirmed once the kernel said that every process of the cgroup is frozen
    assertTrue(
        read(dir.resolve("cgroup.events")).contains("frozen 1"),
        read(dir.resolve("cgroup.events")));
    assertEquals("1", Files.readString(dir.resolve("cgroup.freeze")).strip());
    long frozenAt = read(ticks).length();
    Files.writeString(release, "");
    assertEquals(0, awaitEnd(urgent).getExitStatus());
    cluster.await(victim, j -> j.getSuspendedAt() == 0, SLOW);
    awaitTrue(
        () -> read(dir.resolve("cgroup.events")).contains("frozen 0"),
        SLOW,
        () -> read(dir.resolve("cgroup.events")));
    awaitTrue(() -> read(ticks).length() > frozenAt, SLOW, () -> "ticks after the thaw");
    assertEquals(0, cluster.cli("qdel", victim).exit());
    awaitEnd(victim);
    assertNoCgroupLeft(victim, "b");
    assertNoCgroupLeft(urgent, "b");
  }

  /** The job's BPF device program lets it open its own GPU and denies it the other. */
  @Test
  void aJobOpensItsOwnGpuAndIsDeniedTheOther() throws Exception {
    String script =
        "echo \"cvd=$CUDA_VISIBLE_DEVICES\"\n"
            + "for i in 0 1; do echo \"gpu$i=$(cat "
            + dev
            + "/nvidia$i 2>&1 | sed 's/.*: //')\"; done\n";
    String id = submit(script, "nodes=a:ppn=1:gpus=1");
    Job job = awaitEnd(id);
    String out = MultiNodeCluster.output(job);
    Map<String, String> seen = new TreeMap<>();
    out.lines()
        .filter(l -> l.contains("="))
        .forEach(l -> seen.put(l.split("=")[0], l.split("=")[1]));
    String mine = seen.get("cvd");
    assertTrue(Set.of("0", "1").contains(mine), out);
    String other = mine.equals("0") ? "1" : "0";
    assertEquals(ALLOWED, seen.get("gpu" + mine), out);
    assertEquals(DENIED, seen.get("gpu" + other), out);
    assertNoCgroupLeft(id, "a");
  }

  /**
   * mpirun in a job of two CPUs: both ranks run in the job's cgroup and talk; Open MPI binds each
   * to a core of its own among the job's.
   */
  @Test
  void twoMpiRanksRunInTheJobsCgroup() throws Exception {
    String id = submit("cd " + work + "\nmpirun -np 2 ./ranks\n", "nodes=b:ppn=2");
    Job job = awaitEnd(id);
    String out = MultiNodeCluster.output(job);
    assertEquals(0, job.getExitStatus(), out);
    List<Map<String, String>> ranks =
        out.lines().filter(l -> l.startsWith("rank=")).map(CgroupV2Jobs::fields).toList();
    assertEquals(2, ranks.size(), out);
    Set<String> numbers = new TreeSet<>();
    Set<String> cpus = new TreeSet<>();
    for (Map<String, String> rank : ranks) {
      numbers.add(rank.get("rank"));
      cpus.add(rank.get("cpus"));
      assertEquals("2", rank.get("size"), out);
      assertEquals("1", rank.get("sum"), out);
      assertEquals("/" + cluster.cgroupRoot + "/b/" + id, rank.get("cg"), out);
    }
    assertEquals(Set.of("0", "1"), numbers);
    assertEquals(Set.of("0", "1"), cpus, out);
    assertNoCgroupLeft(id, "b");
  }
}
