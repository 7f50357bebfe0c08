package dev.berth.mom;

import dev.berth.core.Sizes;
import dev.berth.mom.job.JobGpus;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.cgroup.CgroupConfig;
import dev.berth.mom.os.cgroup.CgroupDriver;
import dev.berth.mom.os.cgroup.CgroupUsage;
import dev.berth.mom.os.cgroup.Cgroups;
import dev.berth.mom.os.cgroup.Device;
import dev.berth.mom.os.cgroup.JobCgroup;
import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A mom's use of cgroups: each job whose own cgroup_enable attribute is True gets a cgroup on every
 * node it runs on, with this node's CPUs of the job and its memory, and so does every job on a node
 * with GPUs, denied the GPUs it does not hold; other jobs get none. A mom on a host without usable
 * cgroups still runs jobs that do not ask for isolation, and refuses, with the reason, those that
 * do.
 */
public final class Isolation {
  static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);
  static final Duration REMOVE_TIMEOUT = Duration.ofSeconds(10);

  private final CgroupDriver driver;
  private final String unavailable;
  private final NodeMetrics metrics;

  private Isolation(CgroupDriver driver, String unavailable, NodeMetrics metrics) {
    this.driver = driver;
    this.unavailable = unavailable;
    this.metrics = metrics;
  }

  /**
   * Opens the cgroup driver; a host without usable cgroups gives an Isolation that refuses. Cgroup
   * setup and teardown times and OOM kills are counted in {@code metrics}.
   */
  public static Isolation open(CgroupConfig config, NodeMetrics metrics) {
    try {
      return new Isolation(Cgroups.open(config), "", metrics);
    } catch (IOException | RuntimeException e) {
      return new Isolation(null, e.getMessage(), metrics);
    }
  }

  /** Isolation through {@code driver} as it is (the unit tests' fake driver). */
  public static Isolation over(CgroupDriver driver, NodeMetrics metrics) {
    return new Isolation(driver, "", metrics);
  }

  public static Isolation none(String why) {
    return new Isolation(null, why, NodeMetrics.unscraped(""));
  }

  /** Why this mom makes no cgroups, if it makes none. */
  public Optional<String> withoutCgroups() {
    return driver == null ? Optional.of(unavailable) : Optional.empty();
  }

  public String describe() {
    return driver != null ? driver.describe() : "no cgroups: " + unavailable;
  }

  /** Whether job cgroups here can deny a job devices (the node's GPUs it does not hold). */
  public boolean keepsDevicesApart() {
    return driver != null && driver.controllers().contains("devices");
  }

  /**
   * The job's cgroup on {@code node} if the job asks for one or the node has GPUs: there every job
   * gets one, denied the GPUs it does not hold. A refusal says why it cannot.
   */
  public Optional<JobCgroup> create(Job job, String node, List<Gpu> gpus)
      throws NodeJob.RefusedException {
    JobGpus jobGpus;
    try {
      jobGpus = JobGpus.of(job, node, gpus);
    } catch (JobGpus.Mismatch e) {
      throw new NodeJob.RefusedException(e.getMessage());
    }
    if (!job.getCgroupEnable() && gpus.isEmpty()) {
      return Optional.empty();
    }
    if (driver == null) {
      throw new NodeJob.RefusedException(
          (gpus.isEmpty() ? "the job has cgroup_enable = True but node " : "node ")
              + node
              + " has no usable cgroups: "
              + unavailable);
    }
    NodeAllocation here =
        job.getExecNodesList().stream()
            .filter(a -> a.getNode().equals(node))
            .findFirst()
            .orElseThrow(() -> new NodeJob.RefusedException("the job holds no CPUs on " + node));
    long start = System.nanoTime();
    JobCgroup cgroup;
    try {
      cgroup = driver.create(job.getId(), here.getCpusList(), here.getMem());
    } catch (IOException e) {
      throw new NodeJob.RefusedException(
          "cannot make the job's cgroup on " + node + ": " + e.getMessage());
    }
    try {
      cgroup.denyDevices(
          jobGpus.others().stream().map(g -> new Device(g.getMajor(), g.getMinor())).toList());
    } catch (IOException e) {
      try {
        cgroup.remove(REMOVE_TIMEOUT);
      } catch (IOException r) {
        e.addSuppressed(r);
      }
      throw new NodeJob.RefusedException(
          "cannot keep the job from other jobs' GPUs on " + node + ": " + e.getMessage());
    }
    metrics.cgroupMade(System.nanoTime() - start);
    return Optional.of(cgroup);
  }

  public Optional<JobCgroup> find(String jobId) {
    return driver == null ? Optional.empty() : driver.find(jobId);
  }

  /**
   * What the job's cgroup here has used so far, read while the job runs; empty without a cgroup (or
   * when it cannot be read just now).
   */
  Optional<ResourcesUsed> usedSoFar(String jobId) {
    Optional<JobCgroup> cgroup = find(jobId);
    if (cgroup.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(merge(ResourcesUsed.getDefaultInstance(), cgroup.get().usage()));
    } catch (IOException e) {
      return Optional.empty(); // it is ending; the obit has its final figures
    }
  }

  /** The job's cgroup here if it can freeze the job's processes (for its suspension). */
  public Optional<JobCgroup> freezer(String jobId) {
    return find(jobId).filter(JobCgroup::canFreeze);
  }

  /**
   * Ends whatever is left of the job in its cgroup (also processes that left its session), reads
   * what the cgroup used, and removes it. Empty when the job had no cgroup here.
   */
  public Optional<CgroupUsage> tearDown(String jobId) throws IOException {
    Optional<CgroupUsage> usage = stop(jobId);
    remove(jobId);
    return usage;
  }

  /**
   * Ends whatever is left of the job in its cgroup and reads what the cgroup used, leaving its
   * directories for {@link #remove}: once nothing of the job runs its CPUs are free, and the
   * kernel's slow part (removing a memory cgroup) need not delay the obit. Empty when the job had
   * no cgroup here.
   */
  public Optional<CgroupUsage> stop(String jobId) throws IOException {
    Optional<JobCgroup> cgroup = find(jobId);
    if (cgroup.isEmpty()) {
      return Optional.empty();
    }
    long start = System.nanoTime();
    JobCgroup c = cgroup.get();
    c.killAll(KILL_TIMEOUT);
    CgroupUsage usage = c.usage();
    metrics.cgroupStopped(System.nanoTime() - start);
    if (usage.oomKills() > 0) {
      metrics.oomKilled(usage.oomKills());
    }
    return Optional.of(usage);
  }

  /** Removes the job's cgroup directories (idempotent; a mom restart removes what is left). */
  public void remove(String jobId) throws IOException {
    Optional<JobCgroup> cgroup = find(jobId);
    if (cgroup.isPresent()) {
      long start = System.nanoTime();
      cgroup.get().remove(REMOVE_TIMEOUT);
      metrics.cgroupRemoved(System.nanoTime() - start);
    }
  }

  /** Removes the cgroups of jobs this mom does not know (left by a crash); returns their ids. */
  List<String> removeOrphans(Set<String> known) throws IOException {
    List<String> removed = new ArrayList<>();
    if (driver == null) {
      return removed;
    }
    for (String jobId : driver.jobs()) {
      if (!known.contains(jobId)) {
        tearDown(jobId);
        removed.add(jobId);
      }
    }
    return removed;
  }

  /** At mom stop: removes this mom's (now empty) root levels, leaving other moms' alone. */
  void removeRoot() throws IOException {
    if (driver != null) {
      driver.removeRoot();
    }
  }

  /** Usage with what the cgroup measured in place of the starter's own figures. */
  public static ResourcesUsed merge(ResourcesUsed base, CgroupUsage cgroup) {
    ResourcesUsed.Builder u = base.toBuilder();
    if (cgroup.cpuNanos() >= 0) {
      u.setCput(cgroup.cpuNanos() / 1_000_000_000L);
    }
    if (cgroup.memoryPeakBytes() >= 0) {
      u.setMem(cgroup.memoryPeakBytes());
    }
    if (cgroup.memswPeakBytes() >= 0) {
      u.setVmem(cgroup.memswPeakBytes());
    }
    if (cgroup.oomKills() >= 0) {
      u.setOomKills((int) cgroup.oomKills());
    }
    if (cgroup.ioReadBytes() >= 0) {
      u.setIoRead(cgroup.ioReadBytes());
    }
    if (cgroup.ioWriteBytes() >= 0) {
      u.setIoWrite(cgroup.ioWriteBytes());
    }
    return u.build();
  }

  /** The reason an OOM kill gives: which node, how many processes, and the limit. */
  public static String memoryReason(Job job, String node, long oomKills) {
    long limit =
        job.getExecNodesList().stream()
            .filter(a -> a.getNode().equals(node))
            .mapToLong(NodeAllocation::getMem)
            .findFirst()
            .orElse(0);
    return "memory: "
        + oomKills
        + " process"
        + (oomKills == 1 ? " was" : "es were")
        + " killed on "
        + node
        + " for exceeding the job's memory limit"
        + (limit > 0 ? " of " + Sizes.format(limit) : "");
  }
}
