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
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The v2 driver on the real kernel (as root). On a hybrid host (the project machines) the
 * controllers are bound to cgroup v1, so only tracking works: cgroup.procs, cpu.stat, cgroup.events
 * and cgroup.kill; the test with limits runs only where v2 offers cpuset and memory.
 */
@Tag("integration")
class CgroupV2IT {
  static final long MIB = 1 << 20;
  static final String TOP = RealCgroups.uniqueTop();
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  @TempDir static Path tmp;
  CgroupV2 driver;

  @BeforeAll
  static void needsV2AndRoot() throws IOException {
    assumeTrue(RealCgroups.root(), "cgroups need root");
    assumeTrue(!RealCgroups.mounts().v2().isEmpty(), "no cgroup2 file system is mounted");
    assertTrue(Files.isExecutable(RealCgroups.STARTER), "build the mom module: no starter");
  }

  @AfterEach
  void cleanUp() throws IOException {
    if (driver != null) {
      RealCgroups.clear(driver, TIMEOUT);
    }
  }

  @AfterAll
  static void sweep() throws IOException {
    RealCgroups.sweep(TOP);
  }

  /** Below the own cgroup, as a mom would have it. */
  private CgroupV2 ownParent() throws IOException {
    return CgroupV2.open(new CgroupConfig(CgroupConfig.Mode.V2, TOP + "/n1", Map.of()));
  }

  @Test
  void withoutControllersAJobIsTrackedAndKilledAtOnce() throws Exception {
    driver = ownParent();
    assumeTrue(
        Collections.disjoint(driver.controllers(), Set.of(CgroupV2.CPUSET, CgroupV2.MEMORY)),
        "this host offers cgroup v2 controllers; see aJobIsConfinedWhereV2HasControllers");
    System.out.println(driver.describe());
    IOException e = assertThrows(IOException.class, () -> driver.create("1.v2", List.of(0), 0));
    assertTrue(e.getMessage().contains("cpuset controller is not available"), e.getMessage());
    e = assertThrows(IOException.class, () -> driver.create("1.v2", List.of(), 64 * MIB));
    assertTrue(e.getMessage().contains("memory controller is not available"), e.getMessage());
    assertTrue(driver.find("1.v2").isEmpty(), "a refused create leaves nothing");

    JobCgroup job = driver.create("1.v2", List.of(), 0);
    assertTrue(job.empty());
    Process starter =
        RealCgroups.start(
            job,
            tmp,
            "track",
            List.of(
                "/bin/sh",
                "-c",
                "cat /proc/self/cgroup; (while :; do :; done) & sleep 300 &"
                    + " setsid /bin/sh -c 'sleep 300 & wait' & wait"));
    // the starter, the job's shell, the busy subshell, a sleep, the setsid shell and its sleep
    List<Long> pids = RealCgroups.awaitProcesses(job, 6);
    assertEquals(6, pids.size(), pids.toString());
    Set<Long> sessions = new HashSet<>();
    pids.forEach(p -> sessions.add(RealCgroups.session(p)));
    assertEquals(2, sessions.size(), sessions.toString());
    assertFalse(job.empty());
    Thread.sleep(300);
    CgroupUsage usage = job.usage();
    assertTrue(usage.cpuNanos() > 100_000_000L, usage.toString());
    assertEquals(CgroupUsage.UNKNOWN, usage.memoryPeakBytes());

    long start = System.nanoTime();
    assertTrue(job.killAll(TIMEOUT));
    long killMillis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(job.empty());
    for (long pid : pids) {
      assertFalse(RealCgroups.alive(pid), pid + " is still alive");
    }
    assertTrue(starter.waitFor(5, TimeUnit.SECONDS));
    String out = Files.readString(tmp.resolve("track.out"));
    assertTrue(out.contains("0::/" + TOP + "/n1/1.v2\n"), out);
    job.remove(TIMEOUT);
    assertTrue(driver.find("1.v2").isEmpty());
    System.out.printf(
        "v2 tracking only: %s; cgroup.kill of %d processes: %d ms%n",
        usage, pids.size(), killMillis);
  }

  @Test
  void aJobIsFrozenThawedAndKilledWhileFrozenThroughCgroupFreeze() throws Exception {
    driver = ownParent();
    JobCgroup job = driver.create("3.v2", List.of(), 0);
    Path events = Path.of(job.procsFiles().get(0).getParent().toString(), "cgroup.events");
    RealCgroups.freezeThawAndKillFrozen(
        job, tmp, () -> ControlFiles.field(events, "frozen") == 1, 'S');
    assertTrue(driver.find("3.v2").isEmpty());
  }

  @Test
  void aJobIsConfinedWhereV2HasControllers() throws Exception {
    // the root cgroup may hold processes and still hand controllers down
    driver =
        CgroupV2.open(
            new CgroupConfig(CgroupConfig.Mode.V2, TOP + "/n1", Map.of(CgroupConfig.UNIFIED, "/")));
    assumeTrue(
        driver.controllers().containsAll(Set.of("cpuset", "memory")),
        "cgroup v2 offers no cpuset and memory controllers here (bound to cgroup v1): "
            + driver.describe());
    Path hog = Hog.compile(tmp);
    List<Integer> online =
        CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online")));
    int cpu = online.get(online.size() - 1);
    JobCgroup job = driver.create("2.v2", List.of(cpu), 60 * MIB);
    RealCgroups.Run where =
        RealCgroups.run(
            job, tmp, "where", List.of("/bin/grep", "Cpus_allowed_list", "/proc/self/status"));
    assertTrue(where.output().contains("Cpus_allowed_list:\t" + cpu + "\n"), where.output());
    RealCgroups.Run big = RealCgroups.run(job, tmp, "big", List.of(hog.toString(), "100"));
    assertTrue(big.status().startsWith("signal 9"), big.status());
    assertTrue(job.usage().oomKills() >= 1, job.usage().toString());
  }

  /**
   * A fork storm inside a job stops at the cap on the mom's jobs' tasks (pids.max of the mom's
   * root), while processes outside the jobs fork as they like: the storm's perl counts its children
   * until fork fails.
   */
  @Test
  void aForkStormStopsAtTheJobsTaskCap() throws Exception {
    CgroupV2 capped =
        CgroupV2.open(
            new CgroupConfig(CgroupConfig.Mode.V2, TOP + "/n2", Map.of(CgroupConfig.UNIFIED, "/")),
            RealCgroups.mounts(),
            Kernel.LINUX,
            20);
    driver = capped;
    assumeTrue(
        capped.controllers().contains(CgroupV2.PIDS),
        "cgroup v2 offers no pids controller here: " + capped.describe());
    JobCgroup job = capped.create("9.v2", List.of(), 0);
    RealCgroups.stormStopsAtTheCap(job, tmp, 20);
  }
}
