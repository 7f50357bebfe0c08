package dev.berth.mom.job;

import dev.berth.proto.ResourcesUsed;

/** A job's usage from two of its parts (two nodes, or a node and its tasks' figures) together. */
public final class UsageSums {
  private UsageSums() {}

  /**
   * CPU time, memory, swap, OOM kills and block I/O add up; GPU utilisation is the mean over all
   * the sampled GPUs of both, and their peak memory adds up. The rest is {@code a}'s.
   */
  public static ResourcesUsed add(ResourcesUsed a, ResourcesUsed b) {
    ResourcesUsed.Builder sum =
        a.toBuilder()
            .setCput(a.getCput() + b.getCput())
            .setMem(a.getMem() + b.getMem())
            .setVmem(a.getVmem() + b.getVmem())
            .setOomKills(a.getOomKills() + b.getOomKills())
            .setIoRead(a.getIoRead() + b.getIoRead())
            .setIoWrite(a.getIoWrite() + b.getIoWrite());
    int sampled = a.getGpusSampled() + b.getGpusSampled();
    if (sampled > 0) {
      long weighted =
          (long) a.getGpuPercent() * a.getGpusSampled()
              + (long) b.getGpuPercent() * b.getGpusSampled();
      sum.setGpuPercent((int) Math.round((double) weighted / sampled))
          .setGpusSampled(sampled)
          .setGpuMem(a.getGpuMem() + b.getGpuMem());
    }
    return sum.build();
  }
}
