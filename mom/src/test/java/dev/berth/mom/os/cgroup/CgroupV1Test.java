package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The v1 driver on fake cgroup trees. */
class CgroupV1Test {
  static final long MIB = 1 << 20;

  @TempDir Path tmp;

  private CgroupV1 driver(FakeTree t, Map<String, String> parents) throws IOException {
    return CgroupV1.open(
        new CgroupConfig(CgroupConfig.Mode.V1, "berth/n1", parents), t.mounts(), t.kernel);
  }

  private static String read(Path p) throws IOException {
    return Files.readString(p).strip();
  }

  @Test
  void makesTheJobBelowTheOwnCgroupInEveryHierarchy() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7.srv", List.of(1, 2), 64 * MIB);

    Path top = t.top;
    assertEquals(
        List.of(
            top.resolve("cpuset/berth/n1/7.srv/cgroup.procs"),
            top.resolve("memory/process_api/abc/berth/n1/7.srv/cgroup.procs"),
            top.resolve("cpuacct/berth/n1/7.srv/cgroup.procs"),
            top.resolve("freezer/berth/n1/7.srv/cgroup.procs")),
        job.procsFiles());
    assertFalse(Files.exists(top.resolve("memory/berth")), "memory stays below the own cgroup");
    assertFalse(Files.exists(top.resolve("cpu/berth")), "the cpu hierarchy is not used");
    assertEquals("7.srv", job.jobId());
  }

  @Test
  void everyCpusetLevelGetsItsParentsCpusAndTheJobItsOwn() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    driver(t, Map.of()).create("7", List.of(2, 1), 0);

    Path cpuset = t.top.resolve("cpuset");
    for (String level : List.of("berth", "berth/n1")) {
      assertEquals("0-3", read(cpuset.resolve(level).resolve("cpuset.cpus")), level);
      assertEquals("0", read(cpuset.resolve(level).resolve("cpuset.mems")), level);
    }
    assertEquals("1-2", read(cpuset.resolve("berth/n1/7/cpuset.cpus")));
    assertEquals("0", read(cpuset.resolve("berth/n1/7/cpuset.mems")));
    assertEquals(
        List.of(
            "cpuset/berth/cpuset.cpus=0-3",
            "cpuset/berth/n1/cpuset.cpus=0-3",
            "cpuset/berth/n1/7/cpuset.cpus=1-2"),
        t.kernel.writesTo("cpuset.cpus"),
        "top down: a level cannot take CPUs its parent does not have");
    assertEquals(
        FakeTree.MAX,
        read(t.top.resolve("memory/process_api/abc/berth/n1/7/" + MemoryLimits.LIMIT)),
        "no limit asked, none set");
  }

  @Test
  void aSecondJobReusesTheLevels() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    CgroupV1 d = driver(t, Map.of());
    d.create("7", List.of(0), 0);
    t.kernel.writes.clear();
    d.create("8", List.of(), 0);
    assertEquals(
        List.of("cpuset/berth/n1/8/cpuset.cpus=0-3"),
        t.kernel.writesTo("cpuset.cpus"),
        "no CPUs asked: the job shares the parent's");
  }

  @Test
  void setsTheMemoryLimitAndMemswInTheOrderTheKernelAccepts() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    CgroupV1 d = driver(t, Map.of());
    d.create("7", List.of(0), 64 * MIB);
    d.create("7", List.of(0), 128 * MIB); // again, raised: idempotent and memsw first

    String dir = "memory/process_api/abc/berth/n1/7/";
    assertEquals(
        List.of(
            dir + MemoryLimits.LIMIT + "=67108864",
            dir + MemoryLimits.MEMSW + "=67108864",
            dir + MemoryLimits.MEMSW + "=134217728",
            dir + MemoryLimits.LIMIT + "=134217728"),
        t.kernel.writes.stream().filter(w -> w.contains("limit_in_bytes")).toList());
  }

  @Test
  void worksWithoutSwapAccounting() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, false);
    CgroupV1 d = driver(t, Map.of());
    JobCgroup job = d.create("7", List.of(0), 64 * MIB);
    assertEquals(CgroupUsage.UNKNOWN, job.usage().memswPeakBytes());
    Path dir = t.top.resolve("memory/process_api/abc/berth/n1/7");
    assertEquals("67108864", read(dir.resolve(MemoryLimits.LIMIT)));
    assertFalse(Files.exists(dir.resolve(MemoryLimits.MEMSW)));
    assertTrue(d.describe().contains("no swap accounting"), d.describe());
  }

  @Test
  void refusesCpusTheParentDoesNotHaveAndLeavesNothingBehind() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    CgroupV1 d = driver(t, Map.of());
    IOException e = assertThrows(IOException.class, () -> d.create("7", List.of(3, 4, 5), 0));
    assertTrue(e.getMessage().contains("CPUs 3-5 are not all in"), e.getMessage());
    assertTrue(e.getMessage().contains("(0-3)"), e.getMessage());
    assertEquals(List.of(), d.jobs());
    assertEquals(Optional.empty(), d.find("7"));
  }

  @Test
  void coMountedHierarchiesShareOneDirectory() throws IOException {
    FakeTree t = new FakeTree(tmp);
    Map<String, String> files = new java.util.HashMap<>(FakeTree.cpuset());
    files.putAll(FakeTree.memory(true));
    t.v1("cpuset,memory", files);
    t.v1("cpu,cpuacct", Map.of("cpuacct.usage", "0"));
    t.v1("freezer", Map.of("freezer.state", "THAWED"));
    t.own("3:cpuset,memory", "/");
    t.own("2:cpu,cpuacct", "/");
    t.own("1:freezer", "/");
    JobCgroup job = driver(t, Map.of()).create("7", List.of(1), 60 * MIB);

    Path both = t.top.resolve("cpuset+memory/berth/n1/7");
    assertEquals(
        List.of(
            both.resolve("cgroup.procs"),
            t.top.resolve("cpu+cpuacct/berth/n1/7/cgroup.procs"),
            t.top.resolve("freezer/berth/n1/7/cgroup.procs")),
        job.procsFiles());
    assertEquals("1", read(both.resolve("cpuset.cpus")));
    assertEquals("62914560", read(both.resolve(MemoryLimits.LIMIT)));
    assertEquals("62914560", read(both.resolve(MemoryLimits.MEMSW)));
  }

  @Test
  void parentsCanBeConfiguredPerHierarchyOrForAll() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    t.cgroup(t.top.resolve("cpuset"), "batch");
    Files.writeString(t.top.resolve("cpuset/batch/cpuset.cpus"), "2-3");
    Files.writeString(t.top.resolve("cpuset/batch/cpuset.mems"), "0");
    JobCgroup job =
        driver(t, Map.of(CgroupConfig.ALL, "/", "cpuset", "/batch")).create("7", List.of(3), 0);
    assertEquals(
        List.of(
            t.top.resolve("cpuset/batch/berth/n1/7/cgroup.procs"),
            t.top.resolve("memory/berth/n1/7/cgroup.procs"),
            t.top.resolve("cpuacct/berth/n1/7/cgroup.procs"),
            t.top.resolve("freezer/berth/n1/7/cgroup.procs")),
        job.procsFiles());
    assertEquals("2-3", read(t.top.resolve("cpuset/batch/berth/cpuset.cpus")));
  }

  @Test
  void explainsAMissingHierarchyOrParent() throws IOException {
    FakeTree t = new FakeTree(tmp);
    t.v1("cpuset", FakeTree.cpuset());
    t.own("3:cpuset", "/");
    IOException e = assertThrows(IOException.class, () -> driver(t, Map.of()));
    assertEquals("cgroup v1: no memory hierarchy is mounted", e.getMessage());

    FakeTree h = FakeTree.hybrid(tmp.resolve("h"), true);
    e = assertThrows(IOException.class, () -> driver(h, Map.of("memory", "/nope")));
    assertTrue(e.getMessage().contains("nope, does not exist"), e.getMessage());
  }

  @Test
  void readsUsage() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7", List.of(0), 64 * MIB);
    Path mem = t.top.resolve("memory/process_api/abc/berth/n1/7");
    Files.writeString(mem.resolve("memory.max_usage_in_bytes"), "67108864\n");
    Files.writeString(
        mem.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    Files.writeString(mem.resolve("memory.memsw.max_usage_in_bytes"), "67112960\n");
    Files.writeString(t.top.resolve("cpuacct/berth/n1/7/cpuacct.usage"), "1228181810\n");
    assertEquals(new CgroupUsage(1228181810L, 67108864L, 67112960L, 2), job.usage());
  }

  @Test
  void listsAndFindsJobsIncludingHalfRemovedOnes() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    CgroupV1 d = driver(t, Map.of());
    assertEquals(List.of(), d.jobs(), "no root yet");
    d.create("8", List.of(), 0);
    d.create("10", List.of(), 0);
    t.cgroup(t.top.resolve("freezer"), "berth/n1/3.orphan");
    assertEquals(List.of("10", "3.orphan", "8"), d.jobs());
    assertTrue(d.find("3.orphan").isPresent());
    assertTrue(d.find("9").isEmpty());
    d.find("3.orphan").get().remove(Duration.ZERO);
    assertEquals(List.of("10", "8"), d.jobs());
  }

  @Test
  void removeTakesChildCgroupsFirstAndIsIdempotent() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    CgroupV1 d = driver(t, Map.of());
    JobCgroup job = d.create("7", List.of(0), 0);
    t.cgroup(t.top.resolve("freezer/berth/n1/7"), "task0/sub");
    job.remove(Duration.ofSeconds(1));
    job.remove(Duration.ofSeconds(1));
    d.job("never-made").remove(Duration.ZERO);
    assertEquals(List.of(), d.jobs());
    assertTrue(Files.isDirectory(t.top.resolve("cpuset/berth/n1")), "the root stays");
  }

  @Test
  void removeRetriesWhileBusyAndThenGivesUp() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7", List.of(0), 0);
    t.kernel.join(t.top.resolve("cpuset/berth/n1/7"), 4242);
    long start = System.nanoTime();
    IOException e = assertThrows(IOException.class, () -> job.remove(Duration.ofMillis(50)));
    assertTrue(System.nanoTime() - start >= 50_000_000L, "it retried until the timeout");
    assertTrue(e.getMessage().contains("Device or resource busy"), e.getMessage());
    assertFalse(job.empty());
    t.kernel.kill(4242);
    assertTrue(job.empty());
    job.remove(Duration.ZERO);
  }

  @Test
  void killAllFreezesKillsEveryPidAndThaws() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7", List.of(0), 0);
    t.kernel.join(t.top.resolve("freezer/berth/n1/7"), 101);
    t.kernel.join(t.top.resolve("freezer/berth/n1/7"), 102);
    t.kernel.join(t.top.resolve("cpuset/berth/n1/7"), 103); // only here: killed all the same
    t.kernel.writes.clear();

    assertTrue(job.killAll(Duration.ofSeconds(1)));
    assertEquals(
        List.of(
            "freezer/berth/n1/7/freezer.state=FROZEN",
            "kill 103",
            "kill 101",
            "kill 102",
            "freezer/berth/n1/7/freezer.state=THAWED"),
        t.kernel.writes);
    assertTrue(job.empty());
    assertTrue(job.killAll(Duration.ZERO), "nothing left: nothing to do");
  }

  @Test
  void aSuspendedJobFreezesAndThawsThroughFreezerState() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7", List.of(0), 0);
    Path state = t.top.resolve("freezer/berth/n1/7/freezer.state");
    assertTrue(job.canFreeze());
    t.kernel.writes.clear();

    assertTrue(job.freeze(Duration.ofSeconds(1)));
    assertEquals("FROZEN", read(state));
    assertTrue(job.freeze(Duration.ofSeconds(1)), "again: still frozen");
    job.thaw();
    assertEquals("THAWED", read(state));
    assertEquals(
        List.of(
            "freezer/berth/n1/7/freezer.state=FROZEN",
            "freezer/berth/n1/7/freezer.state=FROZEN",
            "freezer/berth/n1/7/freezer.state=THAWED"),
        t.kernel.writes);
  }

  @Test
  void aFreezeThatStaysFreezingGivesUpAfterTheWaitAndCanBeAskedAgain() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7", List.of(0), 0);
    t.kernel.stuckFreezing = true;
    long start = System.nanoTime();
    assertFalse(job.freeze(Duration.ofMillis(50)));
    assertTrue(System.nanoTime() - start >= 50_000_000L, "it waited");
    assertEquals("FREEZING", read(t.top.resolve("freezer/berth/n1/7/freezer.state")));

    t.kernel.stuckFreezing = false; // the process came out of its uninterruptible sleep
    assertTrue(job.freeze(Duration.ofMillis(50)));
  }

  @Test
  void killAllOfAFrozenJobLeavesItThawedAndEmpty() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    JobCgroup job = driver(t, Map.of()).create("7", List.of(0), 0);
    t.kernel.join(t.top.resolve("freezer/berth/n1/7"), 101);
    assertTrue(job.freeze(Duration.ofSeconds(1)));

    assertTrue(job.killAll(Duration.ofSeconds(1)));
    assertEquals("THAWED", read(t.top.resolve("freezer/berth/n1/7/freezer.state")));
    assertTrue(job.empty());
    job.remove(Duration.ZERO);
    assertEquals(List.of(), driver(t, Map.of()).jobs());
  }

  @Test
  void killAllWorksWithoutAFreezer() throws IOException {
    FakeTree t = new FakeTree(tmp);
    t.v1("cpuset", FakeTree.cpuset());
    t.v1("memory", FakeTree.memory(true));
    t.own("3:cpuset", "/");
    t.own("4:memory", "/");
    CgroupV1 d = driver(t, Map.of());
    assertTrue(d.describe().contains("freezer=not mounted"), d.describe());
    assertTrue(d.describe().contains("killing without a freezer"), d.describe());
    JobCgroup job = d.create("7", List.of(0), 0);
    assertEquals(2, job.procsFiles().size());
    assertFalse(job.canFreeze(), "a suspension must stop its processes some other way");
    assertFalse(job.freeze(Duration.ZERO));
    t.kernel.join(t.top.resolve("memory/berth/n1/7"), 101);
    assertTrue(job.killAll(Duration.ZERO), "one round even without time to wait");
    assertEquals(List.of(101L), t.kernel.killed);
    assertEquals(
        new CgroupUsage(CgroupUsage.UNKNOWN, 0, 0, 0), job.usage(), "no cpuacct: no CPU time");
  }

  @Test
  void removeRootLeavesWhatOtherMomsStillUse() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    CgroupV1 n1 = driver(t, Map.of());
    CgroupV1 n2 =
        CgroupV1.open(
            new CgroupConfig(CgroupConfig.Mode.V1, "berth/n2", Map.of()), t.mounts(), t.kernel);
    JobCgroup job = n1.create("7", List.of(0), 0);
    n2.create("8", List.of(1), 0).remove(Duration.ZERO);

    assertFalse(n1.removeRoot(), "a job is still there");
    job.remove(Duration.ZERO);
    assertTrue(n1.removeRoot());
    assertFalse(Files.exists(t.top.resolve("cpuset/berth/n1")));
    assertTrue(Files.exists(t.top.resolve("cpuset/berth/n2")), "the other mom's root stays");
    assertTrue(n2.removeRoot());
    assertFalse(Files.exists(t.top.resolve("cpuset/berth")));
    assertFalse(Files.exists(t.top.resolve("memory/process_api/abc/berth")));
    assertTrue(Files.exists(t.top.resolve("memory/process_api/abc")), "the parent stays");
    assertTrue(n1.removeRoot(), "idempotent");
  }

  @Test
  void describesEveryHierarchy() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    assertEquals(
        "cgroup v1: cpuset="
            + t.top.resolve("cpuset/berth/n1")
            + ", memory="
            + t.top.resolve("memory/process_api/abc/berth/n1")
            + ", cpuacct="
            + t.top.resolve("cpuacct/berth/n1")
            + ", freezer="
            + t.top.resolve("freezer/berth/n1")
            + ", devices=not mounted, blkio=not mounted, pids=not mounted (no block I/O figures)"
            + " (no cap on the jobs' tasks: a fork bomb can take every process id)"
            + t.mounts().movesNote(),
        driver(t, Map.of()).describe());
  }

  @Test
  void capsTheTasksOfAllTheMomsJobsOnItsRootInThePidsHierarchy() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    t.v1("pids", Map.of("pids.max", "max"));
    t.own("7:pids", "/");
    CgroupV1 d =
        CgroupV1.open(
            new CgroupConfig(CgroupConfig.Mode.V1, "berth/n1", Map.of()),
            t.mounts(),
            t.kernel,
            3000);
    JobCgroup job = d.create("7.srv", List.of(1), 0);

    assertEquals("3000", read(t.top.resolve("pids/berth/n1/pids.max")));
    assertTrue(
        job.procsFiles().contains(t.top.resolve("pids/berth/n1/7.srv/cgroup.procs")),
        "the job's processes join the pids hierarchy too: " + job.procsFiles());
    assertTrue(d.describe().contains("(the jobs' tasks capped at 3000)"), d.describe());
  }

  @Test
  void deniesEachDeviceByAnExactRuleInTheDevicesHierarchy() throws IOException {
    FakeTree t = FakeTree.hybrid(tmp, true);
    t.v1("devices", Map.of("devices.deny", "", "devices.allow", "", "devices.list", "a *:* rwm"));
    t.own("7:devices", "/");
    CgroupV1 d = driver(t, Map.of());
    assertTrue(d.controllers().contains("devices"));
    JobCgroup job = d.create("7", List.of(0), 0);
    t.kernel.writes.clear();
    job.denyDevices(List.of(new Device(195, 1), new Device(195, 2)));
    assertEquals(
        List.of(
            "devices/berth/n1/7/devices.deny=c 195:1 rwm",
            "devices/berth/n1/7/devices.deny=c 195:2 rwm"),
        t.kernel.writes);
    assertTrue(job.procsFiles().contains(t.top.resolve("devices/berth/n1/7/cgroup.procs")));
  }

  @Test
  void withoutADevicesHierarchyDevicesCannotBeDenied() throws IOException {
    CgroupV1 d = driver(FakeTree.hybrid(tmp, true), Map.of());
    assertFalse(d.controllers().contains("devices"));
    JobCgroup job = d.create("7", List.of(0), 0);
    job.denyDevices(List.of()); // nothing to deny
    IOException e =
        assertThrows(IOException.class, () -> job.denyDevices(List.of(new Device(195, 0))));
    assertTrue(e.getMessage().contains("no devices hierarchy"), e.getMessage());
  }
}
