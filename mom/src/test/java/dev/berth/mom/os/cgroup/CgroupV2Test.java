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
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The v2 driver on fake unified trees. */
class CgroupV2Test {
  static final long MIB = 1 << 20;

  @TempDir Path tmp;
  FakeTree t;
  Path mount;
  Path service;

  /** A pure v2 host; the mom runs in a leaf below its service, which is the parent. */
  @BeforeEach
  void pureV2() throws IOException {
    t = new FakeTree(tmp);
    mount = t.v2("cgroup", FakeTree.v2Controllers());
    service = t.cgroup(mount, "system.slice/berth-mom.service");
    t.kernel.join(t.cgroup(service, "mom"), 99);
    t.own("0:", "/system.slice/berth-mom.service/mom");
  }

  private CgroupV2 driver(String parent) throws IOException {
    return CgroupV2.open(
        new CgroupConfig(CgroupConfig.Mode.V2, "berth/n1", Map.of("unified", parent)),
        t.mounts(),
        t.kernel,
        3000);
  }

  private static String read(Path p) throws IOException {
    return Files.readString(p).strip();
  }

  @Test
  void handsCpusetMemoryIoAndPidsDownToTheJobsLevelByLevel() throws IOException {
    CgroupV2 d = driver("/system.slice/berth-mom.service");
    assertEquals(Set.of("cpuset", "memory", "io", "pids"), d.controllers());
    JobCgroup job = d.create("7", List.of(1, 2), 64 * MIB);

    assertEquals(List.of(service.resolve("berth/n1/7/cgroup.procs")), job.procsFiles());
    assertEquals(
        List.of(
            "cgroup/system.slice/berth-mom.service/cgroup.subtree_control=+cpuset +memory +io"
                + " +pids",
            "cgroup/system.slice/berth-mom.service/berth/cgroup.subtree_control=+cpuset +memory"
                + " +io +pids",
            "cgroup/system.slice/berth-mom.service/berth/n1/cgroup.subtree_control=+cpuset"
                + " +memory +io +pids"),
        t.kernel.writesTo("cgroup.subtree_control"),
        "the job's own level, a leaf, hands nothing down");
    Path dir = service.resolve("berth/n1/7");
    assertEquals("1-2", read(dir.resolve("cpuset.cpus")));
    assertEquals("0", read(dir.resolve("cpuset.mems")));
    assertEquals("67108864", read(dir.resolve("memory.max")));
    assertEquals("0", read(dir.resolve("memory.swap.max")), "no escape into swap");
    assertEquals(
        "3000", read(service.resolve("berth/n1/pids.max")), "all the mom's jobs' tasks capped");

    t.kernel.writes.clear();
    d.create("8", List.of(3), 0);
    assertEquals(List.of(), t.kernel.writesTo("cgroup.subtree_control"), "already enabled");
    assertEquals("max", read(service.resolve("berth/n1/8/memory.max")));
  }

  @Test
  void worksWithoutSwapAccounting() throws IOException {
    Files.delete(service.resolve("memory.swap.max"));
    driver("/system.slice/berth-mom.service").create("7", List.of(0), 64 * MIB);
    assertEquals("67108864", read(service.resolve("berth/n1/7/memory.max")));
    assertFalse(Files.exists(service.resolve("berth/n1/7/memory.swap.max")));
  }

  @Test
  void explainsAParentThatHoldsProcesses() throws IOException {
    CgroupV2 d = driver("/system.slice/berth-mom.service/mom");
    IOException e = assertThrows(IOException.class, () -> d.create("7", List.of(0), 0));
    assertTrue(e.getMessage().contains("it holds processes (1, e.g. 99)"), e.getMessage());
    assertTrue(e.getMessage().contains("move the mom into a leaf cgroup"), e.getMessage());
    assertEquals(List.of(), d.jobs());
  }

  /**
   * Under systemd the mom's own cgroup is its service's, where it runs: it moves into a leaf of its
   * own so that the service's cgroup can hand controllers down to the jobs.
   */
  @Test
  void theMomMovesFromItsOwnCgroupIntoALeafToHoldTheJobsBelowIt() throws IOException {
    FakeTree s = new FakeTree(tmp.resolve("systemd"));
    Path top = s.v2("cgroup", FakeTree.v2Controllers());
    Path unit = s.cgroup(top, "system.slice/berth-mom.service");
    s.kernel.join(unit, 77);
    s.own("0:", "/system.slice/berth-mom.service");
    CgroupV2 d =
        CgroupV2.open(
            new CgroupConfig(CgroupConfig.Mode.V2, "berth/n1", Map.of()), s.mounts(), s.kernel);
    assertEquals(
        List.of("cgroup/system.slice/berth-mom.service/mom/cgroup.procs=77"),
        s.kernel.writesTo("cgroup.procs"));
    assertTrue(d.describe().contains("own processes moved to " + unit.resolve("mom")));
    IOException clash =
        assertThrows(
            IOException.class,
            () ->
                CgroupV2.open(
                    new CgroupConfig(CgroupConfig.Mode.V2, "mom/n1", Map.of()),
                    s.mounts(),
                    s.kernel));
    assertTrue(clash.getMessage().contains("may not be mom"), clash.getMessage());
  }

  /** The root cgroup may hold processes and still hand controllers down: nothing moves there. */
  @Test
  void aMomInTheRootCgroupStaysThere() throws IOException {
    FakeTree s = new FakeTree(tmp.resolve("root"));
    Path top = s.v2("cgroup", FakeTree.v2Controllers());
    s.kernel.join(top, 1);
    s.own("0:", "/");
    CgroupV2 d =
        CgroupV2.open(
            new CgroupConfig(CgroupConfig.Mode.V2, "berth/n1", Map.of()), s.mounts(), s.kernel);
    assertEquals(List.of(), s.kernel.writesTo("cgroup.procs"));
    assertFalse(d.describe().contains("moved"), d.describe());
  }

  @Test
  void refusesCpusTheParentDoesNotHave() throws IOException {
    CgroupV2 d = driver("/system.slice/berth-mom.service");
    IOException e = assertThrows(IOException.class, () -> d.create("7", List.of(4), 0));
    assertTrue(e.getMessage().contains("CPUs 4 are not all in"), e.getMessage());
    assertTrue(d.find("7").isEmpty(), "the half-made cgroup was removed");
  }

  @Test
  void withoutControllersJobsAreTrackedOnly() throws IOException {
    FakeTree h = FakeTree.hybrid(tmp.resolve("hybrid"), true);
    CgroupV2 d =
        CgroupV2.open(
            new CgroupConfig(CgroupConfig.Mode.V2, "berth/n1", Map.of()), h.mounts(), h.kernel);
    assertEquals(Set.of(), d.controllers());
    assertTrue(d.describe().contains("none, tracking only"), d.describe());
    assertTrue(d.describe().contains("offers hugetlb"), d.describe());

    IOException cpus = assertThrows(IOException.class, () -> d.create("7", List.of(0), 0));
    assertTrue(cpus.getMessage().contains("cannot give a job CPUs 0"), cpus.getMessage());
    assertTrue(cpus.getMessage().contains("cpuset controller is not available"));
    assertTrue(cpus.getMessage().contains("use the v1 driver"));
    IOException mem = assertThrows(IOException.class, () -> d.create("7", List.of(), MIB));
    assertTrue(mem.getMessage().contains("memory controller is not available"));

    JobCgroup job = d.create("7", List.of(), 0);
    assertEquals(List.of(h.top.resolve("unified/berth/n1/7/cgroup.procs")), job.procsFiles());
    assertEquals(List.of(), h.kernel.writesTo("cgroup.subtree_control"));
    assertEquals(
        new CgroupUsage(0, CgroupUsage.UNKNOWN, CgroupUsage.UNKNOWN, CgroupUsage.UNKNOWN),
        job.usage());
  }

  @Test
  void readsUsage() throws IOException {
    JobCgroup job = driver("/system.slice/berth-mom.service").create("7", List.of(0), 64 * MIB);
    Path dir = service.resolve("berth/n1/7");
    Files.writeString(dir.resolve("cpu.stat"), "usage_usec 461371\nuser_usec 442147\n");
    Files.writeString(dir.resolve("memory.peak"), "67108864\n");
    Files.writeString(dir.resolve("memory.events"), "low 0\nhigh 0\nmax 40\noom 1\noom_kill 2\n");
    Files.writeString(dir.resolve("memory.swap.peak"), "4096\n");
    assertEquals(new CgroupUsage(461_371_000L, 67108864L, 67112960L, 2), job.usage());

    Files.delete(dir.resolve("memory.peak")); // before 5.19: the highest memory.current seen
    Files.writeString(dir.resolve("memory.current"), "1000\n");
    assertEquals(1000, job.usage().memoryPeakBytes());
    Files.writeString(dir.resolve("memory.current"), "400\n");
    assertEquals(1000, job.usage().memoryPeakBytes());
    assertEquals(CgroupUsage.UNKNOWN, job.usage().memswPeakBytes());
  }

  @Test
  void killAllWritesCgroupKill() throws IOException {
    JobCgroup job = driver("/system.slice/berth-mom.service").create("7", List.of(0), 0);
    Path dir = service.resolve("berth/n1/7");
    t.kernel.join(dir, 101);
    t.kernel.join(dir, 102);
    assertFalse(job.empty());
    t.kernel.writes.clear();

    assertTrue(job.killAll(Duration.ofSeconds(1)));
    assertEquals(
        List.of("cgroup/system.slice/berth-mom.service/berth/n1/7/cgroup.kill=1"), t.kernel.writes);
    assertTrue(job.empty());
    job.remove(Duration.ZERO);
    assertTrue(job.empty(), "a cgroup that is gone is empty");
  }

  @Test
  void killAllFreezesWhereThereIsNoCgroupKill() throws IOException {
    JobCgroup job = driver("/system.slice/berth-mom.service").create("7", List.of(0), 0);
    Path dir = service.resolve("berth/n1/7");
    Files.delete(dir.resolve("cgroup.kill"));
    t.kernel.join(dir, 101);
    t.kernel.writes.clear();

    assertTrue(job.killAll(Duration.ofSeconds(1)));
    String f = "cgroup/system.slice/berth-mom.service/berth/n1/7/cgroup.freeze=";
    assertEquals(List.of(f + "1", "kill 101", f + "0"), t.kernel.writes);
  }

  @Test
  void aSuspendedJobFreezesAndThawsThroughCgroupFreeze() throws IOException {
    JobCgroup job = driver("/system.slice/berth-mom.service").create("7", List.of(0), 0);
    Path dir = service.resolve("berth/n1/7");
    assertTrue(job.canFreeze());
    t.kernel.writes.clear();

    assertTrue(job.freeze(Duration.ofSeconds(1)));
    assertEquals(1, ControlFiles.field(dir.resolve("cgroup.events"), "frozen"));
    job.thaw();
    String f = "cgroup/system.slice/berth-mom.service/berth/n1/7/cgroup.freeze=";
    assertEquals(List.of(f + "1", f + "0"), t.kernel.writes);

    t.kernel.stuckFreezing = true;
    assertFalse(job.freeze(Duration.ofMillis(20)), "cgroup.events never said frozen");
  }

  @Test
  void beforeLinux52NothingFreezes() throws IOException {
    JobCgroup job = driver("/system.slice/berth-mom.service").create("7", List.of(0), 0);
    Files.delete(service.resolve("berth/n1/7/cgroup.freeze"));
    t.kernel.writes.clear();
    assertFalse(job.canFreeze());
    assertFalse(job.freeze(Duration.ZERO));
    job.thaw();
    assertEquals(List.of(), t.kernel.writes);
  }

  @Test
  void listsJobsAndRemovesItsRoot() throws IOException {
    CgroupV2 d = driver("/system.slice/berth-mom.service");
    d.create("8", List.of(), 0);
    JobCgroup ten = d.create("10", List.of(), 0);
    assertEquals(List.of("10", "8"), d.jobs());
    assertTrue(d.find("8").isPresent());
    assertFalse(d.removeRoot());
    ten.remove(Duration.ZERO);
    d.find("8").orElseThrow().remove(Duration.ZERO);
    assertTrue(d.removeRoot());
    assertFalse(Files.exists(service.resolve("berth")));
    assertEquals(List.of(), d.jobs());
  }

  @Test
  void theParentDefaultsToTheOwnCgroup() throws IOException {
    t.kernel.writes.clear();
    CgroupV2 d =
        CgroupV2.open(
            new CgroupConfig(CgroupConfig.Mode.V2, "berth/n1", Map.of()),
            t.mounts(),
            t.kernel,
            3000);
    assertEquals(
        "cgroup v2: "
            + service.resolve("mom/berth/n1")
            + ", controllers: cpuset io memory pids, the jobs' tasks capped at 3000, the mom's own"
            + " processes moved to "
            + service.resolve("mom/mom")
            + " (a cgroup that hands controllers down holds none)"
            + t.mounts().movesNote(),
        d.describe());
  }
}
