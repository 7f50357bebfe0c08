package dev.berth.mom.os.cgroup;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Job cgroups as a map: made, frozen, thawed, killed and removed in memory, each step written down
 * for the test to read; what a cgroup used is what the test says. Thread-safe.
 */
public final class FakeCgroupDriver implements CgroupDriver {
  private final Map<String, FakeCgroup> cgroups = new ConcurrentHashMap<>();
  private final List<String> steps = new CopyOnWriteArrayList<>();
  private final Path root;
  private volatile String refusal;
  private volatile CgroupUsage usage = new CgroupUsage(0, 0, 0, 0);

  /** Cgroups "below" {@code root}: their procs files are named there, and never written. */
  public FakeCgroupDriver(Path root) {
    this.root = root;
  }

  /** Makes from now on fail with {@code message} (null: they succeed again). */
  public void refuse(String message) {
    refusal = message;
  }

  /** What every cgroup reports it used from now on. */
  public void uses(CgroupUsage usage) {
    this.usage = usage;
  }

  /** What was done, in order: {@code create JOB}, {@code freeze JOB}, {@code killAll JOB}, ... */
  public List<String> steps() {
    return List.copyOf(steps);
  }

  public boolean exists(String jobId) {
    return cgroups.containsKey(jobId);
  }

  public boolean frozen(String jobId) {
    FakeCgroup c = cgroups.get(jobId);
    return c != null && c.frozen;
  }

  @Override
  public JobCgroup create(String jobId, List<Integer> cpus, long memoryLimit) throws IOException {
    if (refusal != null) {
      throw new IOException(refusal);
    }
    steps.add("create " + jobId);
    return cgroups.computeIfAbsent(jobId, FakeCgroup::new);
  }

  @Override
  public Optional<JobCgroup> find(String jobId) {
    return Optional.ofNullable(cgroups.get(jobId));
  }

  @Override
  public List<String> jobs() {
    return new ArrayList<>(cgroups.keySet());
  }

  @Override
  public Set<String> controllers() {
    return Set.of("cpuset", "memory", "devices");
  }

  @Override
  public boolean removeRoot() {
    return cgroups.isEmpty();
  }

  @Override
  public String describe() {
    return "fake cgroups below " + root;
  }

  private final class FakeCgroup implements JobCgroup {
    private final String jobId;
    private volatile boolean frozen;

    FakeCgroup(String jobId) {
      this.jobId = jobId;
    }

    @Override
    public String jobId() {
      return jobId;
    }

    @Override
    public List<Path> procsFiles() {
      return List.of(root.resolve(jobId).resolve("cgroup.procs"));
    }

    @Override
    public void denyDevices(List<Device> devices) {
      steps.add("denyDevices " + jobId);
    }

    @Override
    public CgroupUsage usage() {
      return usage;
    }

    @Override
    public boolean empty() {
      return true;
    }

    @Override
    public boolean canFreeze() {
      return true;
    }

    @Override
    public boolean freeze(Duration wait) {
      steps.add("freeze " + jobId);
      frozen = true;
      return true;
    }

    @Override
    public void thaw() {
      steps.add("thaw " + jobId);
      frozen = false;
    }

    @Override
    public boolean killAll(Duration timeout) {
      steps.add("killAll " + jobId);
      return true;
    }

    @Override
    public void remove(Duration timeout) {
      steps.add("remove " + jobId);
      cgroups.remove(jobId);
    }
  }
}
