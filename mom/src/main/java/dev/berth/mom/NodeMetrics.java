package dev.berth.mom;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.IntSupplier;

/** One mom's instruments: {@link MomMetrics} with the node's label. */
public final class NodeMetrics {
  /** The step labels of berth_mom_cgroup_teardown_seconds. */
  private static final String STOP = "stop";

  private static final String REMOVE = "remove";

  private final MomMetrics metrics;
  private final String node;

  NodeMetrics(MomMetrics metrics, String node) {
    this.metrics = metrics;
    this.node = node;
    // every series exists from the first scrape, at zero (ServerMetrics says why)
    metrics.cgroupSetup.initLabelValues(node);
    metrics.cgroupTeardown.initLabelValues(node, STOP);
    metrics.cgroupTeardown.initLabelValues(node, REMOVE);
    metrics.oomKills.initLabelValues(node);
    metrics.failedStarts.initLabelValues(node);
  }

  /** Instruments nobody scrapes: for a mom started without a metrics endpoint. */
  public static NodeMetrics unscraped(String node) {
    return new MomMetrics(new PrometheusRegistry()).of(node);
  }

  /** Where the node's job count comes from: its mom, once it runs. */
  void counting(IntSupplier jobs) {
    metrics.counting(node, jobs);
  }

  void cgroupMade(long nanos) {
    metrics.cgroupSetup.labelValues(node).observe(nanos / 1e9);
  }

  void cgroupStopped(long nanos) {
    metrics.cgroupTeardown.labelValues(node, STOP).observe(nanos / 1e9);
  }

  void cgroupRemoved(long nanos) {
    metrics.cgroupTeardown.labelValues(node, REMOVE).observe(nanos / 1e9);
  }

  void oomKilled(long processes) {
    metrics.oomKills.labelValues(node).inc(processes);
  }

  public void startFailed() {
    metrics.failedStarts.labelValues(node).inc();
  }
}
