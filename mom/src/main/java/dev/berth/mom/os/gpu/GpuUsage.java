package dev.berth.mom.os.gpu;

import dev.berth.mom.job.UsageSums;
import dev.berth.proto.ResourcesUsed;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a job's GPUs on one node did over its run, gathered from samples. Each sample of a GPU
 * stands for the time since the previous one (since the job started, for the first), so the mean
 * utilisation weighs samples by the time they cover, however irregularly they come; memory is each
 * GPU's peak.
 */
public final class GpuUsage {
  private final List<Integer> minors;
  private long last;
  private final Map<Integer, Long> percentMillis = new HashMap<>();
  private final Map<Integer, Long> coveredMillis = new HashMap<>();
  private final Map<Integer, Long> peakBytes = new HashMap<>();

  /** Usage of the GPUs with these minor numbers, from {@code startMillis} on. */
  public GpuUsage(List<Integer> minors, long startMillis) {
    this.minors = List.copyOf(minors);
    this.last = startMillis;
  }

  /** Takes in a sample of the node's GPUs (minor number to figures) taken at {@code now}. */
  public synchronized void add(long now, Map<Integer, GpuSample> samples) {
    long span = Math.max(1, now - last); // a sample at the very start still counts
    last = Math.max(last, now);
    for (int minor : minors) {
      GpuSample s = samples.get(minor);
      if (s != null) {
        percentMillis.merge(minor, s.percent() * span, Long::sum);
        coveredMillis.merge(minor, span, Long::sum);
        peakBytes.merge(minor, s.memoryBytes(), Math::max);
      }
    }
  }

  /** {@code used} with these GPUs' figures; unchanged when no sample told anything of them. */
  public synchronized ResourcesUsed addTo(ResourcesUsed used) {
    if (coveredMillis.isEmpty()) {
      return used;
    }
    double sum = 0;
    for (var e : coveredMillis.entrySet()) {
      sum += (double) percentMillis.get(e.getKey()) / e.getValue();
    }
    ResourcesUsed mine =
        ResourcesUsed.newBuilder()
            .setGpuPercent((int) Math.round(sum / coveredMillis.size()))
            .setGpusSampled(coveredMillis.size())
            .setGpuMem(peakBytes.values().stream().mapToLong(Long::longValue).sum())
            .build();
    return UsageSums.add(used, mine);
  }
}
