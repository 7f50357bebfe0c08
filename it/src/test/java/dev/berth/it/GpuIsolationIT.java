package dev.berth.it;

import static dev.berth.it.MultiNodeCluster.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * GPUs kept apart, with stand-in GPUs: character devices with NVIDIA's major (195) and minors no
 * driver serves here, which the moms are told are their GPUs. Opening one gives "No such device or
 * address" where the job's devices cgroup lets it through and "Operation not permitted" where it
 * denies it. As on a real cluster, both nodes' GPUs have the same numbers: node a has three
 * (dev/a/nvidia0-2), node b two (dev/b/nvidia0-1), GPU N being 195:(230+N) on each. Each mom's
 * stand-in nvidia-smi says GPU N is busy (N+1)·20% with (N+1) GiB in use on a, and 10% with 512 MiB
 * on b.
 */
@Tag("integration")
class GpuIsolationIT {
  static final String USER = TestUsers.ALICE;
  static final int FIRST_MINOR = 230;
  static final String ALLOWED = "No such device or address";
  static final String DENIED = "Operation not permitted";

  static MultiNodeCluster cluster;
  static Path work;
  static Path dev;

  @BeforeAll
  static void start() throws Exception {
    TestUsers.ensure(USER);
    JobTools.ensureOnPath();
    work = MultiNodeCluster.workFor(USER, "berth-gpu-work-");
    dev = Files.createTempDirectory(Path.of("/tmp"), "berth-gpus-");
    Files.setPosixFilePermissions(dev, PosixFilePermissions.fromString("rwxr-xr-x"));
    String gpusOfA = standIns("a", 3);
    String gpusOfB = standIns("b", 2);
    cluster = MultiNodeCluster.start();
    cluster.startMom(
        "a",
        "0-1",
        "--node-hostname",
        "--gpus",
        gpusOfA,
        "--gpu-sampling",
        "1",
        "--nvidia-smi",
        standInSmi("a", "230, 20, 1024", "231, 40, 2048", "232, 60, 3072"));
    cluster.startMom(
        "b",
        "0-1",
        "--node-hostname",
        "--gpus",
        gpusOfB,
        "--gpu-sampling",
        "1",
        "--nvidia-smi",
        standInSmi("b", "230, 10, 512", "231, [N/A], 512"));
  }

  /** The node's stand-in GPUs, mode 0666 so that the job's user passes the file permissions. */
  private static String standIns(String node, int count) throws IOException {
    Path dir = Files.createDirectories(dev.resolve(node));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path gpu = dir.resolve("nvidia" + i);
      TestCluster.Result r =
          TestCluster.exec(
              dir,
              List.of(
                  "mknod",
                  "-m",
                  "666",
                  gpu.toString(),
                  "c",
                  "195",
                  Integer.toString(FIRST_MINOR + i)));
      assertEquals(0, r.exit(), r.toString());
      paths.add(gpu.toString());
    }
    return String.join(",", paths);
  }

  /**
   * A stand-in nvidia-smi that answers the mom's sampling query (minor number, utilisation, MiB in
   * use) with {@code lines}, and fails any other.
   */
  private static String standInSmi(String node, String... lines) throws IOException {
    Path smi = dev.resolve("nvidia-smi-" + node);
    Files.writeString(
        smi,
        "#!/bin/sh\n"
            + "[ \"$1\" = --query-gpu=minor_number,utilization.gpu,memory.used ] || exit 1\n"
            + "printf '%s\\n' '"
            + String.join("' '", lines)
            + "'\n");
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    return smi.toString();
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
    JobFiles.removeTree(dev);
  }

  /**
   * A job script that reports, on every node of the job (through pbsdsh when {@code everyNode}),
   * its host, CUDA_VISIBLE_DEVICES and what opening each of the node's stand-ins gives.
   */
  private static String report(String file) {
    return "{ echo \"host=$(hostname) cvd=${CUDA_VISIBLE_DEVICES-unset}\"\n"
        + "  for f in "
        + dev
        + "/$(hostname)/nvidia*; do cat $f 2>&1 | sed \"s|^cat: |$(hostname) |\"; done\n"
        + "} >> "
        + file
        + "\n";
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static String qsub(String script, String resources) throws IOException {
    return cluster.submitAs(USER, work, script, "-j", "oe", "-l", resources);
  }

  private static Job done(String id) {
    return cluster.await(id, j -> j.getState() == JobState.COMPLETED, Duration.ofSeconds(90));
  }

  /** Asserts which of {@code node}'s GPUs the report says the job could open. */
  private static void assertOpens(String report, String node, Set<Integer> allowed, int count) {
    for (int i = 0; i < count; i++) {
      String line = node + " " + dev.resolve(node).resolve("nvidia" + i) + ": ";
      String expected = line + (allowed.contains(i) ? ALLOWED : DENIED);
      assertTrue(report.contains(expected + "\n"), "expected '" + expected + "' in\n" + report);
    }
  }

  @Test
  void twoJobsOnANodeGetDisjointGpusAndEachIsDeniedTheOthers() throws Exception {
    Path release = work.resolve("release");
    String waitForRelease =
        "n=0; while [ ! -e " + release + " ] && [ $n -lt 900 ]; do sleep 0.1; n=$((n+1)); done\n";
    String one =
        qsub(
            "cat $PBS_GPUFILE > "
                + work.resolve("one.gpufile")
                + "\n"
                + report(work + "/one.txt")
                + waitForRelease,
            "nodes=a:ppn=1:gpus=1");
    String two =
        qsub(
            "cat $PBS_GPUFILE > "
                + work.resolve("two.gpufile")
                + "\n"
                + report(work + "/two.txt")
                + waitForRelease,
            "nodes=a:ppn=1:gpus=2");
    awaitTrue(
        () ->
            read(work.resolve("one.txt")).contains("nvidia2")
                && read(work.resolve("two.txt")).contains("nvidia2"),
        Duration.ofSeconds(60));

    // both run now: the node shows who holds which GPU, and qstat which GPUs each job has
    String nodes = cluster.cli("pbsnodes", "a").out();
    Job first = cluster.job(one);
    Job second = cluster.job(two);
    List<Integer> ofOne = first.getExecNodes(0).getGpuIdsList();
    List<Integer> ofTwo = second.getExecNodes(0).getGpuIdsList();
    assertEquals(1, ofOne.size());
    assertEquals(2, ofTwo.size());
    Set<Integer> all = new HashSet<>(ofOne);
    all.addAll(ofTwo);
    assertEquals(Set.of(0, 1, 2), all, "disjoint");
    assertTrue(nodes.contains("gpus = 3"), nodes);
    for (int id : ofOne) {
      assertTrue(nodes.contains("gpu[" + id + "]=gpu_id=" + dev + "/a/nvidia" + id), nodes);
      assertTrue(nodes.contains("gpu_state=Exclusive;gpu_job=" + one), nodes);
    }
    String qstat = cluster.cli("qstat", "-f", one).out();
    assertTrue(qstat.contains("exec_gpus = a-gpu/" + ofOne.get(0)), qstat);
    Files.writeString(release, "");
    Job oneDone = done(one);
    Job twoDone = done(two);
    assertEquals(0, oneDone.getExitStatus());
    assertEquals(0, twoDone.getExitStatus());
    // what the driver (the stand-in nvidia-smi) said of each job's own GPUs
    int id = ofOne.get(0);
    assertEquals((id + 1) * 20, oneDone.getResourcesUsed().getGpuPercent(), "gpupercent");
    assertEquals((id + 1L) << 30, oneDone.getResourcesUsed().getGpuMem(), "gpumem");
    int a = ofTwo.get(0);
    int b = ofTwo.get(1);
    assertEquals((a + b + 2) * 10, twoDone.getResourcesUsed().getGpuPercent(), "mean of two");
    assertEquals((a + b + 2L) << 30, twoDone.getResourcesUsed().getGpuMem(), "sum of two");
    assertEquals(2, twoDone.getResourcesUsed().getGpusSampled());

    String reportOne = read(work.resolve("one.txt"));
    assertTrue(reportOne.contains("host=a cvd=0\n"), reportOne);
    assertOpens(reportOne, "a", Set.copyOf(ofOne), 3);
    assertEquals("a-gpu" + ofOne.get(0) + "\n", read(work.resolve("one.gpufile")));
    String reportTwo = read(work.resolve("two.txt"));
    assertTrue(reportTwo.contains("host=a cvd=0,1\n"), reportTwo);
    assertOpens(reportTwo, "a", Set.copyOf(ofTwo), 3);
    assertEquals(
        "a-gpu" + ofTwo.get(0) + "\na-gpu" + ofTwo.get(1) + "\n",
        read(work.resolve("two.gpufile")));
    assertTrue(cluster.cli("pbsnodes", "a").out().contains("gpu_state=Unallocated"));
  }

  @Test
  void aJobAcrossNodesSeesItsGpusOnEachAndTasksToo() throws Exception {
    String id =
        qsub(
            "cat $PBS_GPUFILE > "
                + work.resolve("across.gpufile")
                + "\npbsdsh -u sh -c '"
                + report(work + "/across.txt").replace("'", "'\\''")
                + "'\n",
            "nodes=2:ppn=1:gpus=1");
    Job job = done(id);
    assertEquals(0, job.getExitStatus(), MultiNodeCluster.output(job));
    String report = read(work.resolve("across.txt"));
    assertTrue(report.contains("host=a cvd=0\n"), report);
    assertTrue(report.contains("host=b cvd=0\n"), report);
    assertOpens(report, "a", Set.of(0), 3);
    assertOpens(report, "b", Set.of(0), 2);
    assertEquals("a-gpu0\nb-gpu0\n", read(work.resolve("across.gpufile")));
    assertEquals(2, job.getResourcesUsed().getGpus(), "resources_used.gpus");
    // a's GPU 0 at 20% with 1 GiB, b's at 10% with 512 MiB
    String qstat = cluster.cli("qstat", "-f", id).out();
    assertTrue(qstat.contains("resources_used.gpupercent = 15\n"), qstat);
    assertTrue(qstat.contains("resources_used.gpumem = 1572864kb\n"), qstat);
  }

  /**
   * sbatch --gpus-per-task: as many GPUs on each node as its tasks take, and srun gives each task
   * its own, in order (Slurm's implied per-task binding): CUDA_VISIBLE_DEVICES names only the
   * task's. A step that asks a task for more than the job has on its node is refused by the mom.
   */
  @Test
  void gpusPerTaskGiveEachTaskOfAStepItsOwn() throws Exception {
    String id =
        cluster.sbatchAs(
            USER,
            work,
            "#!/bin/sh\n#SBATCH -N 2 -n 4 --gpus-per-task=1 -o per-task.out\n"
                + "srun -l sh -c 'echo host=$(hostname) local=$SLURM_LOCALID"
                + " cvd=$CUDA_VISIBLE_DEVICES each=$SLURM_GPUS_PER_TASK'\n"
                + "srun -N 1 -n 2 --gpus-per-task=2 true; echo beyond=$?\n");
    Job job = done(id);
    String out = MultiNodeCluster.output(job);
    assertEquals(0, job.getExitStatus(), out);
    assertTrue(job.getResources().getValuesMap().get("nodes").contains("gpus=2"), job.toString());
    for (String line :
        List.of(
            "0: host=a local=0 cvd=0 each=1",
            "1: host=a local=1 cvd=1 each=1",
            "2: host=b local=0 cvd=0 each=1",
            "3: host=b local=1 cvd=1 each=1")) {
      assertTrue(out.contains(line + "\n"), line + " in " + out);
    }
    assertTrue(out.contains("srun: error: a: task 1: could not start: "), out);
    assertTrue(out.contains("the task's GPU 2 is not one of the job's 2 on this node\n"), out);
    assertTrue(out.contains("beyond=2\n"), out);
  }

  /**
   * A job without GPUs on a GPU node is denied every GPU, and cannot get one back: not by making
   * its own device file, not by leaving its devices cgroup, not by widening its rules.
   */
  @Test
  void aJobWithoutGpusCannotOpenOneByAnyMeans() throws Exception {
    Path mine = work.resolve("mine");
    String attempts =
        "cat "
            + dev
            + "/a/nvidia0 2>&1 | sed 's/^/own: /'\n"
            + "mknod "
            + mine
            + " c 195 "
            + FIRST_MINOR
            + " 2>&1 | sed 's/^/mknod: /'\n"
            + "ln -s "
            + dev
            + "/a/nvidia1 "
            + work
            + "/link; cat "
            + work
            + "/link 2>&1 | sed 's/^/link: /'\n"
            + "cg=$(grep :devices: /proc/self/cgroup | cut -d: -f3)\n"
            + "echo \"cgroup=$cg\"\n"
            + "(echo 'c 195:* rwm' > /sys/fs/cgroup/devices$cg/devices.allow) 2>&1 | sed 's/^/allow: /'\n"
            + "(echo $$ > /sys/fs/cgroup/devices/cgroup.procs) 2>&1 | sed 's/^/escape: /'\n"
            + "cat "
            + dev
            + "/a/nvidia0 2>&1 | sed 's/^/after: /'\n";
    String id = qsub(attempts + report(work + "/none.txt"), "nodes=a:ppn=1");
    Job job = done(id);
    String out = MultiNodeCluster.output(job);
    assertEquals(0, job.getExitStatus(), out);
    assertTrue(out.contains("own: cat: " + dev + "/a/nvidia0: " + DENIED), out);
    assertTrue(out.contains("mknod: "), "an unprivileged user cannot make a device: " + out);
    assertTrue(out.contains("link: cat: " + work + "/link: " + DENIED), out);
    assertTrue(out.contains(cluster.cgroupRoot + "/a/" + id + "\n"), out);
    assertTrue(out.contains("allow: ") && out.contains("devices.allow: Permission denied"), out);
    assertTrue(out.contains("escape: "), out);
    assertTrue(out.contains("after: cat: " + dev + "/a/nvidia0: " + DENIED), out);
    String report = read(work.resolve("none.txt"));
    assertTrue(report.contains("host=a cvd=unset\n"), report);
    assertOpens(report, "a", Set.of(), 3);
    assertNotEquals("", report);
  }

  /**
   * In its container image a job finds only its own GPU in /dev, can open it, and cannot open
   * another of the node's through the host's device files mounted in (the devices cgroup).
   */
  @Test
  void aContainerJobSeesOnlyItsGpusAndTheCgroupStillGuardsTheOthers() throws Exception {
    Path image = TestImages.tiny();
    String script =
        "ls /dev | tr '\\n' ' ' | sed 's/^/dev: /'; echo\n"
            + "echo \"cvd=$CUDA_VISIBLE_DEVICES\"\n"
            + "for f in /dev/nvidia*; do cat $f 2>&1 | sed 's/^/own: /'; done\n"
            + "for f in /host-gpus/nvidia*; do cat $f 2>&1 | sed 's/^/host: /'; done\n";
    String id =
        cluster.submitAs(
            USER,
            work,
            script,
            "-j",
            "oe",
            "-l",
            "nodes=b:ppn=1:gpus=1",
            "-W",
            "container_image=" + image,
            "-W",
            "container_mounts=" + dev.resolve("b") + ":/host-gpus:ro");
    Job job = done(id);
    String out = MultiNodeCluster.output(job);
    assertEquals(0, job.getExitStatus(), out);
    int mine = job.getExecNodes(0).getGpuIds(0);
    String devLine = out.lines().filter(l -> l.startsWith("dev: ")).findFirst().orElse("");
    assertTrue(devLine.contains(" nvidia" + mine + " "), out);
    assertTrue(
        !devLine.contains(" nvidia" + (1 - mine) + " "), "the other GPU is not there: " + out);
    assertTrue(out.contains("cvd=0\n"), out);
    assertTrue(says(out, "own: ", "/dev/nvidia" + mine, ALLOWED), out);
    assertTrue(says(out, "host: ", "/host-gpus/nvidia" + mine, ALLOWED), out);
    assertTrue(says(out, "host: ", "/host-gpus/nvidia" + (1 - mine), DENIED), out);
  }

  /**
   * Whether a line starting with {@code prefix} names {@code file} and {@code what} (busybox's cat
   * words it its own way).
   */
  private static boolean says(String out, String prefix, String file, String what) {
    return out.lines()
        .anyMatch(
            l ->
                l.startsWith(prefix)
                    && (l.contains(file + "'") || l.contains(file + ":"))
                    && l.endsWith(what));
  }

  @Test
  void moreGpusThanAnyNodeHasAreRefusedAtQsub() throws IOException {
    TestCluster.Result r = cluster.qsubAs(USER, work, "true\n", "-l", "nodes=1:gpus=4");
    assertNotEquals(0, r.exit(), r.toString());
    assertTrue(r.err().contains("job can never run"), r.toString());
    assertTrue(r.err().contains("gpus=4"), r.toString());
  }
}
