package dev.berth.mom.os.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Gpu;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Which jobs' GPUs the monitor samples, and when. */
class GpuMonitorTest {
  private static final ResourcesUsed NONE = ResourcesUsed.getDefaultInstance();
  private static final Gpu NVIDIA0 = Gpu.newBuilder().setIndex(0).setMajor(195).build();
  private static final Gpu OTHER = Gpu.newBuilder().setIndex(0).setMajor(511).build();

  /** A job that holds GPU 0 on node n. */
  private static Job holding(String id) {
    return Job.newBuilder()
        .setId(id)
        .addExecNodes(NodeAllocation.newBuilder().setNode("n").setGpus(1).addGpuIds(0))
        .build();
  }

  @Test
  void theSamplingThreadAndTheLastSampleBothCount() throws Exception {
    AtomicLong now = new AtomicLong();
    CountDownLatch twice = new CountDownLatch(2);
    AtomicInteger percent = new AtomicInteger(100);
    Supplier<Map<Integer, GpuSample>> sampler =
        () -> {
          now.addAndGet(1_000);
          twice.countDown();
          return Map.of(0, new GpuSample(percent.get(), now.get()));
        };
    try (GpuMonitor m = new GpuMonitor(sampler, now::get, Duration.ofMillis(5))) {
      m.watch(holding("1.s"), "n", List.of(NVIDIA0));
      assertTrue(twice.await(30, TimeUnit.SECONDS), "the thread samples while a job is watched");
      percent.set(0);
      ResourcesUsed used = m.finish("1.s", NONE);
      // every sample covered a second: at least two at 100%, the last at 0%
      assertTrue(used.getGpuPercent() > 0 && used.getGpuPercent() < 100, used.toString());
      assertEquals(1, used.getGpusSampled());
      assertEquals(now.get(), used.getGpuMem(), "the last sample's memory is the peak");
      assertSame(NONE, m.finish("1.s", NONE), "finished once");
    }
  }

  @Test
  void onlyGpusTheDriverKnowsAreWatched() {
    AtomicInteger asked = new AtomicInteger();
    Supplier<Map<Integer, GpuSample>> sampler =
        () -> {
          asked.incrementAndGet();
          return Map.of(0, new GpuSample(50, 1));
        };
    try (GpuMonitor m = new GpuMonitor(sampler, () -> 0, Duration.ofDays(1))) {
      m.watch(holding("2.s"), "n", List.of(OTHER));
      assertSame(NONE, m.finish("2.s", NONE));
      m.watch(holding("3.s"), "n", List.of(NVIDIA0));
      m.watch(holding("5.s"), "elsewhere", List.of(NVIDIA0));
      assertSame(NONE, m.finish("5.s", NONE), "it holds none here");
      m.forget("3.s");
      assertSame(NONE, m.finish("3.s", NONE));
      assertEquals(0, asked.get(), "nothing was asked of the driver");
    }
  }

  @Test
  void aMonitorThatIsOffWatchesNothing() {
    try (GpuMonitor m = GpuMonitor.off()) {
      m.watch(holding("4.s"), "n", List.of(NVIDIA0));
      assertSame(NONE, m.finish("4.s", NONE));
    }
  }
}
