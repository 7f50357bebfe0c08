package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A job's cgroup v1 directories, one per controller (co-mounted controllers share one). */
final class V1Job implements JobCgroup {
  private final String jobId;
  private final Map<String, Path> dirs;
  private final Kernel kernel;

  V1Job(String jobId, Map<String, Path> dirs, Kernel kernel) {
    this.jobId = jobId;
    this.dirs = Collections.unmodifiableMap(new LinkedHashMap<>(dirs));
    this.kernel = kernel;
  }

  @Override
  public String jobId() {
    return jobId;
  }

  Path dir(String controller) {
    return dirs.get(controller);
  }

  boolean exists() {
    return distinctDirs().stream().anyMatch(Files::isDirectory);
  }

  @Override
  public List<Path> procsFiles() {
    return distinctDirs().stream().map(d -> d.resolve("cgroup.procs")).toList();
  }

  /**
   * Writes a deny rule per device below a parent that allows everything. Only exact rules are
   * written: the kernel removes an exception only by an exactly matching rule, and a deny-all
   * followed by allows would also take away every device the job needs that nobody listed.
   */
  @Override
  public void denyDevices(List<Device> devices) throws IOException {
    if (devices.isEmpty()) {
      return;
    }
    Path dir = dirs.get(CgroupV1.DEVICES);
    if (dir == null) {
      throw new IOException(
          "cgroup v1: no devices hierarchy is mounted, so the job cannot be kept from devices "
              + devices);
    }
    for (Device d : devices) {
      kernel.write(dir.resolve("devices.deny"), d.rule());
    }
  }

  @Override
  public CgroupUsage usage() throws IOException {
    Path cpuacct = dirs.get(CgroupV1.CPUACCT);
    Path memory = dirs.get(CgroupV1.MEMORY);
    Path memsw = memory.resolve("memory.memsw.max_usage_in_bytes");
    Path blkio = dirs.get(CgroupV1.BLKIO);
    BlockIo.Bytes io = blkio == null ? BlockIo.Bytes.UNKNOWN : BlockIo.v1(blkio);
    return new CgroupUsage(
        cpuacct == null
            ? CgroupUsage.UNKNOWN
            : ControlFiles.readLong(cpuacct.resolve("cpuacct.usage")),
        ControlFiles.readLong(memory.resolve("memory.max_usage_in_bytes")),
        Files.exists(memsw) ? ControlFiles.readLong(memsw) : CgroupUsage.UNKNOWN,
        ControlFiles.field(memory.resolve("memory.oom_control"), "oom_kill"),
        io.read(),
        io.written());
  }

  @Override
  public boolean empty() throws IOException {
    return ControlFiles.pids(procsFiles()).isEmpty();
  }

  @Override
  public boolean canFreeze() {
    return freezer() != Freezer.NONE;
  }

  @Override
  public boolean freeze(Duration wait) throws IOException {
    return freezer().freeze(wait);
  }

  @Override
  public void thaw() throws IOException {
    freezer().thaw();
  }

  @Override
  public boolean killAll(Duration timeout) throws IOException {
    return Teardown.killAll(kernel, procsFiles(), freezer(), timeout);
  }

  @Override
  public void remove(Duration timeout) throws IOException {
    Teardown.remove(kernel, distinctDirs(), timeout);
  }

  private Set<Path> distinctDirs() {
    return new LinkedHashSet<>(dirs.values());
  }

  /** The job's freezer.state, where a freezer hierarchy is mounted. */
  private Freezer freezer() {
    Path freezer = dirs.get(CgroupV1.FREEZER);
    Path state = freezer == null ? null : freezer.resolve("freezer.state");
    return state == null || !Files.exists(state) ? Freezer.NONE : new StateFreezer(state);
  }

  /**
   * The v1 freezer: FROZEN, then THAWED, through freezer.state, which reads FREEZING until every
   * process is frozen.
   */
  private final class StateFreezer implements Freezer {
    private final Path state;

    StateFreezer(Path state) {
      this.state = state;
    }

    @Override
    public boolean freeze(Duration wait) throws IOException {
      kernel.write(state, "FROZEN");
      long deadline = System.nanoTime() + wait.toNanos();
      long pause = 1;
      while (!ControlFiles.read(state).equals("FROZEN")) {
        if (System.nanoTime() - deadline >= 0) {
          return false;
        }
        Teardown.sleep(pause);
        pause = Math.min(pause * 2, 20);
      }
      return true;
    }

    @Override
    public void thaw() throws IOException {
      kernel.write(state, "THAWED");
    }
  }

  @Override
  public String toString() {
    return "cgroup v1 " + jobId + " " + distinctDirs();
  }
}
