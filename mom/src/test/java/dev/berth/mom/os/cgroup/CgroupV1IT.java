package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The v1 driver on the real kernel (as root): jobs started through berth-starter with its --cgroup
 * options. Every cgroup lives below a unique {@code berth-test-<random>/n1} and is removed
 * afterwards, parent levels included.
 */
@Tag("integration")
class CgroupV1IT {
  static final long MIB = 1 << 20;
  static final String TOP = RealCgroups.uniqueTop();
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  @TempDir static Path tmp;
  static Path hog;
  static int cpu;

  CgroupV1 driver;

  @BeforeAll
  static void needsV1AndRoot() throws IOException, InterruptedException {
    assumeTrue(RealCgroups.root(), "cgroups need root");
    assumeTrue(
        CgroupV1.usable(RealCgroups.mounts()), "no cgroup v1 cpuset and memory hierarchies here");
    assertTrue(Files.isExecutable(RealCgroups.STARTER), "build the mom module: no starter");
    List<Integer> online =
        CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online")));
    cpu = online.get(online.size() - 1);
    hog = Hog.compile(tmp);
  }

  @BeforeEach
  void open() throws IOException {
    driver = CgroupV1.open(new CgroupConfig(CgroupConfig.Mode.V1, TOP + "/n1", Map.of()));
  }

  @AfterEach
  void cleanUp() throws IOException {
    RealCgroups.clear(driver, TIMEOUT);
  }

  @AfterAll
  static void sweep() throws IOException {
    RealCgroups.sweep(TOP);
  }

  @Test
  void aJobProcessIsInEveryJobCgroupOnTheJobsCpus() throws Exception {
    JobCgroup job = driver.create("1.test", List.of(cpu), 64 * MIB);
    String ownMemory = RealCgroups.mounts().own("memory").orElseThrow();
    Path memoryDir = Path.of("/sys/fs/cgroup/memory" + ownMemory, TOP, "n1", "1.test");
    assertTrue(
        job.procsFiles().contains(memoryDir.resolve("cgroup.procs")), job.procsFiles().toString());
    assertEquals("67108864", ControlFiles.read(memoryDir.resolve(MemoryLimits.LIMIT)));
    if (Files.exists(memoryDir.resolve(MemoryLimits.MEMSW))) {
      assertEquals("67108864", ControlFiles.read(memoryDir.resolve(MemoryLimits.MEMSW)));
    }

    RealCgroups.Run run =
        RealCgroups.run(
            job,
            tmp,
            "where",
            List.of(
                "/bin/sh",
                "-c",
                "cat /proc/self/cgroup; grep Cpus_allowed_list /proc/self/status"));

    assertTrue(run.status().startsWith("exit 0"), run.status());
    String at = "/" + TOP + "/n1/1.test";
    for (String controller : List.of("cpuset", "cpuacct", "freezer")) {
      assertTrue(run.output().contains(":" + controller + ":" + at + "\n"), run.output());
    }
    assertTrue(run.output().contains(":memory:" + ownMemory + at + "\n"), run.output());
    assertTrue(run.output().contains("Cpus_allowed_list:\t" + cpu + "\n"), run.output());
    System.out.printf("v1 job process: %s", run.output());
  }

  @Test
  void aProcessOverTheLimitIsOomKilledAndOneUnderItIsNot() throws Exception {
    JobCgroup over = driver.create("2.test", List.of(cpu), 60 * MIB);
    RealCgroups.Run big = RealCgroups.run(over, tmp, "big", List.of(hog.toString(), "100"));
    CgroupUsage overUsage = over.usage();

    JobCgroup under = driver.create("3.test", List.of(cpu), 60 * MIB);
    RealCgroups.Run small = RealCgroups.run(under, tmp, "small", List.of(hog.toString(), "20"));
    CgroupUsage underUsage = under.usage();

    assertTrue(big.status().startsWith("signal 9"), big.status() + " / " + big.output());
    assertTrue(overUsage.oomKills() >= 1, overUsage.toString());
    assertTrue(overUsage.memoryPeakBytes() > 50 * MIB, overUsage.toString());
    assertTrue(overUsage.memoryPeakBytes() <= 60 * MIB, overUsage.toString());
    if (overUsage.memswPeakBytes() != CgroupUsage.UNKNOWN) {
      assertTrue(overUsage.memswPeakBytes() >= overUsage.memoryPeakBytes(), overUsage.toString());
    }
    assertTrue(small.status().startsWith("exit 0"), small.status() + " / " + small.output());
    assertTrue(small.output().contains("touched 20 MB"), small.output());
    assertEquals(0, underUsage.oomKills(), underUsage.toString());
    assertTrue(underUsage.memoryPeakBytes() >= 20 * MIB, underUsage.toString());
    System.out.printf(
        "v1 OOM: 100 MB under 60 MiB -> %s, %s; 20 MB -> %s, %s%n",
        big.status(), overUsage, small.status(), underUsage);
  }

  /**
   * A fork storm inside a job stops at the cap on the mom's jobs' tasks, while processes outside
   * the jobs fork as they like: the storm's perl counts its children until fork fails.
   */
  @Test
  void aForkStormStopsAtTheJobsTaskCap() throws Exception {
    assumeTrue(
        RealCgroups.mounts().v1(CgroupV1.PIDS).size() > 0, "no cgroup v1 pids hierarchy here");
    CgroupV1 capped =
        CgroupV1.open(
            new CgroupConfig(CgroupConfig.Mode.V1, TOP + "/n2", Map.of()),
            RealCgroups.mounts(),
            Kernel.LINUX,
            20);
    JobCgroup job = capped.create("9.test", List.of(cpu), 0);
    try {
      RealCgroups.stormStopsAtTheCap(job, tmp, 20);
    } finally {
      RealCgroups.clear(capped, TIMEOUT);
    }
  }

  @Test
  void cpuTimeGrowsWithABusyLoop() throws Exception {
    JobCgroup job = driver.create("4.test", List.of(cpu), 0);
    long before = job.usage().cpuNanos();
    RealCgroups.Run run =
        RealCgroups.run(
            job,
            tmp,
            "busy",
            List.of("/usr/bin/timeout", "0.5", "/bin/sh", "-c", "while :; do :; done"));
    long after = job.usage().cpuNanos();
    assertTrue(run.status().startsWith("exit 124"), run.status());
    assertTrue(after - before > 300_000_000L, before + " -> " + after);
    System.out.printf("v1 cpuacct.usage: %d -> %d ns%n", before, after);
  }

  @Test
  void theBytesAJobWritesToDiskAreCounted() throws Exception {
    assumeTrue(!RealCgroups.mounts().v1(CgroupV1.BLKIO).isEmpty(), "no blkio hierarchy here");
    JobCgroup job = driver.create("9.test", List.of(cpu), 0);
    Path data = tmp.resolve("written.dat");
    RealCgroups.Run run =
        RealCgroups.run(
            job,
            tmp,
            "writer",
            List.of(
                "/bin/dd",
                "if=/dev/zero",
                "of=" + data,
                "bs=1M",
                "count=20",
                "conv=fsync")); // v1 counts what the job itself writes out, not later writeback
    CgroupUsage usage = job.usage();
    assertTrue(run.status().startsWith("exit 0"), run.status() + " / " + run.output());
    assertTrue(usage.ioWriteBytes() >= 20 * MIB, usage.toString());
    assertTrue(usage.ioReadBytes() >= 0, usage.toString());
    Files.delete(data);
    System.out.printf("v1 blkio: 20 MiB written with fsync -> %s%n", usage);
  }

  @Test
  void killAllEndsEveryProcessEvenThoseInTheirOwnSession() throws Exception {
    JobCgroup job = driver.create("5.test", List.of(cpu), 64 * MIB);
    Process starter =
        RealCgroups.start(
            job,
            tmp,
            "tree",
            List.of(
                "/bin/sh",
                "-c",
                "sleep 300 & sleep 300 & setsid /bin/sh -c 'sleep 300 & sleep 300 & wait' &"
                    + " /bin/sh -c 'sleep 300 & wait' & wait"));
    // the starter, the job's shell, 2 sleeps; the setsid shell, 2 sleeps; a shell, 1 sleep
    List<Long> pids = RealCgroups.awaitProcesses(job, 9);
    assertEquals(9, pids.size(), pids.toString());
    Set<Long> sessions = new HashSet<>();
    pids.forEach(p -> sessions.add(RealCgroups.session(p)));
    assertEquals(2, sessions.size(), "one process left the job's session: " + sessions);

    IOException busy = assertThrows(IOException.class, () -> job.remove(Duration.ofMillis(100)));
    assertTrue(busy.getMessage().contains("Device or resource busy"), busy.getMessage());

    long start = System.nanoTime();
    assertTrue(job.killAll(TIMEOUT));
    long killMillis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(job.empty());
    for (long pid : pids) {
      assertFalse(RealCgroups.alive(pid), pid + " is still alive");
    }
    assertTrue(starter.waitFor(5, TimeUnit.SECONDS));
    start = System.nanoTime();
    job.remove(TIMEOUT);
    long removeMillis = (System.nanoTime() - start) / 1_000_000;
    for (Path procs : job.procsFiles()) {
      assertFalse(Files.exists(procs.getParent()), procs.getParent() + " is left");
    }
    assertTrue(driver.find("5.test").isEmpty());
    System.out.printf(
        "v1 killAll of %d processes in 2 sessions: %d ms, remove: %d ms%n",
        pids.size(), killMillis, removeMillis);
  }

  @Test
  void aJobIsFrozenThawedAndKilledWhileFrozenThroughFreezerState() throws Exception {
    JobCgroup job = driver.create("8.test", List.of(cpu), 64 * MIB);
    Path state = Path.of("/sys/fs/cgroup/freezer", TOP, "n1", "8.test", "freezer.state");
    RealCgroups.freezeThawAndKillFrozen(
        job, tmp, () -> ControlFiles.read(state).equals("FROZEN"), 'D');
    assertTrue(driver.find("8.test").isEmpty());
  }

  @Test
  void listsFindsAndRemovesJobsAndItsRoot() throws IOException {
    long t0 = System.nanoTime();
    driver.create("6.a", List.of(), 0); // with the root levels
    long t1 = System.nanoTime();
    driver.create("6.b", List.of(cpu), 32 * MIB);
    long t2 = System.nanoTime();
    driver.create("6.b", List.of(cpu), 32 * MIB); // idempotent
    System.out.printf(
        "v1 create: first job (with root levels) %.2f ms, second %.2f ms%n",
        (t1 - t0) / 1e6, (t2 - t1) / 1e6);
    assertEquals(List.of("6.a", "6.b"), driver.jobs());
    assertTrue(driver.find("6.a").isPresent());
    assertTrue(driver.find("6.c").isEmpty());
    assertFalse(driver.removeRoot(), "jobs are still there");
    driver.find("6.a").orElseThrow().remove(TIMEOUT);
    driver.find("6.b").orElseThrow().remove(TIMEOUT);
    assertEquals(List.of(), driver.jobs());
    assertTrue(driver.removeRoot());
    assertFalse(Files.exists(Path.of("/sys/fs/cgroup/cpuset", TOP)));
    System.out.println(driver.describe());
  }

  @Test
  void cpusOutsideTheParentAreRefusedAndNothingIsLeft() throws IOException {
    IOException e =
        assertThrows(IOException.class, () -> driver.create("7.test", List.of(cpu + 64), 0));
    assertTrue(e.getMessage().contains("are not all in"), e.getMessage());
    assertTrue(driver.find("7.test").isEmpty());
  }

  /**
   * Stand-in GPUs: device files with NVIDIA's major and minors no driver here has, so open() gives
   * ENXIO where the cgroup lets it through and EPERM where it denies the device.
   */
  @Test
  void aJobIsDeniedTheDevicesItMayNotOpenByWhateverPath() throws Exception {
    assumeTrue(
        driver.controllers().contains(CgroupV1.DEVICES), "no devices hierarchy is mounted here");
    Path dev = Files.createDirectories(tmp.resolve("dev"));
    for (int minor : List.of(200, 201)) {
      RealCgroups.standInGpu(dev.resolve("gpu" + minor), minor);
    }
    Files.createLink(dev.resolve("copy-of-201"), dev.resolve("gpu201"));
    JobCgroup job = driver.create("9.test", List.of(cpu), 0);
    job.denyDevices(List.of(new Device(195, 201)));

    RealCgroups.Run run =
        RealCgroups.run(
            job,
            tmp,
            "devices",
            List.of(
                "/bin/sh",
                "-c",
                "cd " + dev + "; for f in gpu200 gpu201 copy-of-201; do cat $f; done 2>&1; true"));

    assertTrue(run.status().startsWith("exit 0"), run.status());
    assertTrue(run.output().contains("gpu200: No such device or address"), run.output());
    assertTrue(run.output().contains("gpu201: Operation not permitted"), run.output());
    assertTrue(run.output().contains("copy-of-201: Operation not permitted"), run.output());
  }
}
