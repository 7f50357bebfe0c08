package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.ResourcesUsed;
import org.junit.jupiter.api.Test;

/** Two parts of a job's usage together. */
class UsageSumsTest {
  @Test
  void cpuMemoryKillsAndIoAddUpAndTheRestIsTheFirsts() {
    ResourcesUsed a =
        ResourcesUsed.newBuilder()
            .setCput(10)
            .setMem(100)
            .setVmem(200)
            .setOomKills(1)
            .setIoRead(1000)
            .setIoWrite(2000)
            .setWalltime(60)
            .setGpus(2)
            .build();
    ResourcesUsed b =
        ResourcesUsed.newBuilder()
            .setCput(5)
            .setMem(50)
            .setVmem(70)
            .setOomKills(2)
            .setIoRead(10)
            .setIoWrite(20)
            .build();
    ResourcesUsed sum = UsageSums.add(a, b);
    assertEquals(15, sum.getCput());
    assertEquals(150, sum.getMem());
    assertEquals(270, sum.getVmem());
    assertEquals(3, sum.getOomKills());
    assertEquals(1010, sum.getIoRead());
    assertEquals(2020, sum.getIoWrite());
    assertEquals(60, sum.getWalltime());
    assertEquals(2, sum.getGpus());
    assertEquals(0, sum.getGpusSampled());
  }

  @Test
  void gpuUtilisationIsTheMeanOverAllSampledGpusAndTheirMemoryAddsUp() {
    ResourcesUsed a = gpus(30, 1, 1_000);
    ResourcesUsed b = gpus(90, 3, 3_000);
    ResourcesUsed both = UsageSums.add(a, b);
    assertEquals(75, both.getGpuPercent());
    assertEquals(4, both.getGpusSampled());
    assertEquals(4_000, both.getGpuMem());
    assertEquals(a, UsageSums.add(a, ResourcesUsed.getDefaultInstance()));
    assertEquals(b, UsageSums.add(ResourcesUsed.getDefaultInstance(), b));
  }

  private static ResourcesUsed gpus(int percent, int sampled, long mem) {
    return ResourcesUsed.newBuilder()
        .setGpuPercent(percent)
        .setGpusSampled(sampled)
        .setGpuMem(mem)
        .build();
  }
}
