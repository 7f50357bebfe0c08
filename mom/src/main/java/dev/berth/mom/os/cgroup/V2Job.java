package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A job's cgroup v2 directory. */
final class V2Job implements JobCgroup {
  private static final long KILL_ROUND_NANOS = Duration.ofMillis(100).toNanos();

  private final String jobId;
  private final Path dir;
  private final Kernel kernel;
  private final Map<String, Long> sampledPeaks;

  V2Job(String jobId, Path dir, Kernel kernel, Map<String, Long> sampledPeaks) {
    this.jobId = jobId;
    this.dir = dir;
    this.kernel = kernel;
    this.sampledPeaks = sampledPeaks;
  }

  @Override
  public String jobId() {
    return jobId;
  }

  Path dir() {
    return dir;
  }

  @Override
  public List<Path> procsFiles() {
    return List.of(dir.resolve("cgroup.procs"));
  }

  /**
   * Attaches a BPF program denying {@code devices} to the job's directory: cgroup v2 has no devices
   * files. Each call attaches one more program, and a device must pass all of them, so asking again
   * with the same devices changes nothing (the kernel takes 64 programs per cgroup). Removing the
   * directory releases them.
   */
  @Override
  public void denyDevices(List<Device> devices) throws IOException {
    if (devices.isEmpty()) {
      return;
    }
    long[] program;
    try {
      program = DeviceProgram.denying(devices);
    } catch (IllegalArgumentException e) {
      throw new IOException("cgroup v2: " + e.getMessage(), e);
    }
    BpfDevices.attach(dir, program);
  }

  /**
   * CPU time from cpu.stat (no controller needed); where the memory controller is enabled, peak
   * memory from memory.peak (or the highest memory.current seen by a call here), memory plus swap
   * from memory.peak and memory.swap.peak, and OOM kills from memory.events; where io is enabled,
   * block I/O from io.stat.
   */
  @Override
  public CgroupUsage usage() throws IOException {
    long usec = ControlFiles.field(dir.resolve("cpu.stat"), "usage_usec");
    long peak = CgroupUsage.UNKNOWN;
    Path memoryPeak = dir.resolve("memory.peak");
    Path current = dir.resolve("memory.current");
    if (Files.exists(memoryPeak)) {
      peak = ControlFiles.readLong(memoryPeak);
    } else if (Files.exists(current)) {
      peak = sampledPeaks.merge(jobId, ControlFiles.readLong(current), Math::max);
    }
    Path swapPeak = dir.resolve("memory.swap.peak");
    long memsw =
        Files.exists(memoryPeak) && Files.exists(swapPeak)
            ? peak + ControlFiles.readLong(swapPeak)
            : CgroupUsage.UNKNOWN;
    Path events = dir.resolve("memory.events");
    long oom =
        Files.exists(events)
            ? Math.max(0, ControlFiles.field(events, "oom_kill"))
            : CgroupUsage.UNKNOWN;
    BlockIo.Bytes io = BlockIo.v2(dir);
    return new CgroupUsage(
        usec < 0 ? CgroupUsage.UNKNOWN : usec * 1000, peak, memsw, oom, io.read(), io.written());
  }

  @Override
  public boolean empty() throws IOException {
    if (!Files.isDirectory(dir)) {
      return true;
    }
    Path events = dir.resolve("cgroup.events");
    if (Files.exists(events)) {
      return ControlFiles.field(events, "populated") == 0;
    }
    return ControlFiles.pids(procsFiles()).isEmpty();
  }

  @Override
  public boolean canFreeze() {
    return Files.exists(dir.resolve("cgroup.freeze"));
  }

  @Override
  public boolean freeze(Duration wait) throws IOException {
    return canFreeze() && new CoreFreezer().freeze(wait);
  }

  @Override
  public void thaw() throws IOException {
    if (canFreeze()) {
      new CoreFreezer().thaw();
    }
  }

  /**
   * Writes 1 to cgroup.kill (5.14 and later: the kernel kills every process, forks included, at
   * once); on older kernels freezes through cgroup.freeze and kills each pid.
   */
  @Override
  public boolean killAll(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Path kill = dir.resolve("cgroup.kill");
    if (!Files.exists(kill)) {
      Freezer freezer = canFreeze() ? new CoreFreezer() : Freezer.NONE;
      return Teardown.killAll(kernel, procsFiles(), freezer, timeout);
    }
    while (!empty()) {
      kernel.write(kill, "1");
      long round = System.nanoTime() + KILL_ROUND_NANOS;
      long pause = 1;
      while (!empty() && System.nanoTime() - round < 0 && System.nanoTime() - deadline < 0) {
        Teardown.sleep(pause);
        pause = Math.min(pause * 2, 20);
      }
      if (System.nanoTime() - deadline >= 0) {
        return empty();
      }
    }
    return true;
  }

  @Override
  public void remove(Duration timeout) throws IOException {
    Teardown.remove(kernel, List.of(dir), timeout);
    sampledPeaks.remove(jobId);
  }

  /** The v2 freezer: cgroup.freeze 1 until cgroup.events says frozen, then 0. */
  private final class CoreFreezer implements Freezer {
    @Override
    public boolean freeze(Duration wait) throws IOException {
      kernel.write(dir.resolve("cgroup.freeze"), "1");
      long deadline = System.nanoTime() + wait.toNanos();
      long pause = 1;
      while (ControlFiles.field(dir.resolve("cgroup.events"), "frozen") != 1) {
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
      kernel.write(dir.resolve("cgroup.freeze"), "0");
    }
  }

  @Override
  public String toString() {
    return "cgroup v2 " + jobId + " " + dir;
  }
}
