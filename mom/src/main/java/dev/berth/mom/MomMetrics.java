package dev.berth.mom;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The moms' instruments in one process, for Prometheus, each labelled with its node: the jobs a mom
 * holds, how long job cgroups take to set up and to tear down, the processes the kernel killed for
 * exceeding a job's memory, and the jobs whose script never ran. A {@code berth mom} process has
 * one node; the embedded cluster of {@code berth serve} has several in the server's process.
 */
public final class MomMetrics {
  /** Seconds: making a cgroup takes milliseconds, ending one may wait for processes to die. */
  private static final double[] BUCKETS = {
    .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10
  };

  final Histogram cgroupSetup;
  final Histogram cgroupTeardown;
  final Counter oomKills;
  final Counter failedStarts;
  private final Map<String, IntSupplier> jobs = new ConcurrentHashMap<>();

  public MomMetrics(PrometheusRegistry registry) {
    cgroupSetup =
        Histogram.builder()
            .name("berth_mom_cgroup_setup_seconds")
            .help("How long making a job's cgroup took (its CPUs, memory and devices).")
            .labelNames("node")
            .classicOnly()
            .classicUpperBounds(BUCKETS)
            .register(registry);
    cgroupTeardown =
        Histogram.builder()
            .name("berth_mom_cgroup_teardown_seconds")
            .help(
                "How long ending a job's cgroup took: stop (killing what is left and reading its"
                    + " usage) or remove (its directories).")
            .labelNames("node", "step")
            .classicOnly()
            .classicUpperBounds(BUCKETS)
            .register(registry);
    oomKills =
        Counter.builder()
            .name("berth_mom_oom_kills_total")
            .help("Job processes the kernel killed for exceeding their job's memory limit.")
            .labelNames("node")
            .register(registry);
    failedStarts =
        Counter.builder()
            .name("berth_mom_job_start_failures_total")
            .help(
                "Jobs whose script never ran on the node as their mother superior: refused, a"
                    + " prologue or health check failed, or killed before it started.")
            .labelNames("node")
            .register(registry);
    GaugeWithCallback.builder()
        .name("berth_mom_jobs")
        .help("Jobs the node's mom holds, as mother superior or as a sister.")
        .labelNames("node")
        .callback(cb -> jobs.forEach((node, count) -> cb.call(count.getAsInt(), node)))
        .register(registry);
  }

  /** The instruments of the mom of {@code node}. */
  public NodeMetrics of(String node) {
    return new NodeMetrics(this, node);
  }

  void counting(String node, IntSupplier count) {
    jobs.put(node, count);
  }
}
