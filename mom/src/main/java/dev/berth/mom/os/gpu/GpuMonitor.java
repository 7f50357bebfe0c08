package dev.berth.mom.os.gpu;

import dev.berth.mom.job.JobGpus;
import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.ResourcesUsed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Samples what the GPUs jobs hold on this node are doing, as the driver tells it, so that a job's
 * resources_used carries its GPUs' utilisation and peak memory. One sampling thread asks the driver
 * about all GPUs at once, at a fixed interval and only while some job holds one; a job's last
 * sample is taken when it ends, so a job shorter than the interval is measured too.
 */
public final class GpuMonitor implements AutoCloseable {
  /** How long a sample may take; a driver slower than this gives no figures for that moment. */
  static final Duration PATIENCE = Duration.ofSeconds(5);

  private final Supplier<Map<Integer, GpuSample>> sampler;
  private final LongSupplier clock;
  private final ScheduledExecutorService timer;
  private final Map<String, GpuUsage> jobs = new ConcurrentHashMap<>();

  GpuMonitor(Supplier<Map<Integer, GpuSample>> sampler, LongSupplier clock, Duration interval) {
    this.sampler = sampler;
    this.clock = clock;
    if (interval == null) {
      this.timer = null;
      return;
    }
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-gpu-sampling");
              t.setDaemon(true);
              return t;
            });
    long every = interval.toMillis();
    timer.scheduleWithFixedDelay(this::sampleAll, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Samples the node's NVIDIA GPUs through {@code smi} (nvidia-smi) every {@code interval} while
   * jobs hold them.
   */
  public static GpuMonitor nvidia(Path smi, Duration interval) {
    return new GpuMonitor(
        () -> NvidiaSmi.sample(smi, PATIENCE), () -> System.nanoTime() / 1_000_000, interval);
  }

  /** A monitor that samples nothing: a node without GPUs the driver tells about. */
  public static GpuMonitor off() {
    return new GpuMonitor(Map::of, () -> 0, null);
  }

  /**
   * Starts watching the GPUs {@code job} holds on {@code node} of those its mom {@code offers}, the
   * ones the driver knows (NVIDIA's).
   */
  public void watch(Job job, String node, List<Gpu> offers) {
    List<Gpu> held;
    try {
      held = JobGpus.of(job, node, offers).held();
    } catch (JobGpus.Mismatch e) {
      return; // the node refuses the job
    }
    List<Integer> minors =
        held.stream().filter(g -> g.getMajor() == JobGpus.NVIDIA_MAJOR).map(Gpu::getMinor).toList();
    if (timer != null && !minors.isEmpty()) {
      jobs.put(job.getId(), new GpuUsage(minors, clock.getAsLong()));
    }
  }

  /**
   * Ends the watch of {@code jobId}'s GPUs with a last sample; {@code used} with what they did,
   * unchanged when they were not watched.
   */
  public ResourcesUsed finish(String jobId, ResourcesUsed used) {
    GpuUsage usage = jobs.remove(jobId);
    if (usage == null) {
      return used;
    }
    Map<Integer, GpuSample> last = sampler.get();
    usage.add(clock.getAsLong(), last);
    return usage.addTo(used);
  }

  /** Ends the watch of {@code jobId}'s GPUs without a word: the job never ran here. */
  public void forget(String jobId) {
    jobs.remove(jobId);
  }

  private void sampleAll() {
    if (jobs.isEmpty()) {
      return;
    }
    try {
      Map<Integer, GpuSample> sample = sampler.get();
      long now = clock.getAsLong();
      jobs.values().forEach(u -> u.add(now, sample));
    } catch (RuntimeException e) {
      // no figures for this moment; a thrown exception would end the sampling for good
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
