package dev.berth.mom.os.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.berth.proto.ResourcesUsed;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A job's GPU figures from samples, and two parts of a job's figures together. */
class GpuUsageTest {
  private static final ResourcesUsed CPU = ResourcesUsed.newBuilder().setCput(42).build();

  @Test
  void eachSampleWeighsAsMuchAsTheTimeItCovers() {
    GpuUsage u = new GpuUsage(List.of(3), 1_000);
    u.add(2_000, Map.of(3, new GpuSample(100, 10))); // a second at 100%
    u.add(5_000, Map.of(3, new GpuSample(0, 30))); // three seconds idle
    ResourcesUsed used = u.addTo(CPU);
    assertEquals(25, used.getGpuPercent());
    assertEquals(1, used.getGpusSampled());
    assertEquals(30, used.getGpuMem(), "the peak");
    assertEquals(42, used.getCput(), "the rest is kept");
  }

  @Test
  void theMeanIsOverTheJobsGpusAndMemoryIsTheSumOfTheirPeaks() {
    GpuUsage u = new GpuUsage(List.of(0, 1), 0);
    u.add(1_000, Map.of(0, new GpuSample(40, 100), 1, new GpuSample(80, 300), 2, sample(99)));
    u.add(2_000, Map.of(0, new GpuSample(40, 50), 1, new GpuSample(80, 200)));
    ResourcesUsed used = u.addTo(CPU);
    assertEquals(60, used.getGpuPercent());
    assertEquals(2, used.getGpusSampled());
    assertEquals(400, used.getGpuMem(), "GPU 2 is another job's");
  }

  @Test
  void aGpuTheDriverNeverToldOfAddsNothing() {
    GpuUsage u = new GpuUsage(List.of(5), 0);
    u.add(1_000, Map.of(4, sample(50)));
    assertSame(CPU, u.addTo(CPU));
  }

  @Test
  void aSampleAtTheVeryStartStillCounts() {
    GpuUsage u = new GpuUsage(List.of(0), 7_000);
    u.add(7_000, Map.of(0, sample(70)));
    assertEquals(70, u.addTo(CPU).getGpuPercent());
  }

  private static GpuSample sample(int percent) {
    return new GpuSample(percent, 1);
  }
}
