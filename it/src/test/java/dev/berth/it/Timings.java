package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/** How long another user's commands take while a test attacks the server. */
final class Timings {
  private Timings() {}

  /** How long {@code command} took; it must succeed. */
  static Duration timed(Supplier<TestCluster.Result> command) {
    long start = System.nanoTime();
    TestCluster.Result r = command.get();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertEquals(0, r.exit(), r.toString());
    return took;
  }

  /** The {@code p}th percentile of {@code samples} (the nearest-rank one). */
  static Duration percentile(List<Duration> samples, int p) {
    List<Duration> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted.get(Math.max(0, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }
}
