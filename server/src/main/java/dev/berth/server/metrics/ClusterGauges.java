package dev.berth.server.metrics;

import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.server.query.Queries;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.JobCounts;
import dev.berth.server.state.NodeUsage;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The gauges read from the committed state when Prometheus scrapes: jobs by state and queue, the
 * scheduler's backlog, nodes by state, and each node's CPUs, GPUs and memory with what jobs hold of
 * them. The state is an immutable value, so a scrape reads it on its own thread without stopping
 * the server; a server that is not serving (a standby) reports none.
 */
final class ClusterGauges {
  private ClusterGauges() {}

  static void register(PrometheusRegistry registry, Supplier<Optional<ClusterState>> state) {
    GaugeWithCallback.builder()
        .name("berth_jobs")
        .help("Jobs by state and queue (array jobs count their subjobs, not themselves).")
        .labelNames("state", "queue")
        .callback(
            cb ->
                state
                    .get()
                    .ifPresent(
                        s ->
                            s.queues()
                                .keySet()
                                .forEach(
                                    queue -> {
                                      JobCounts counts = s.counts(queue);
                                      for (JobState js : JobState.values()) {
                                        if (js != JobState.JOB_STATE_UNSPECIFIED
                                            && js != JobState.UNRECOGNIZED) {
                                          cb.call(counts.count(js), word(js), queue);
                                        }
                                      }
                                    })))
        .register(registry);
    GaugeWithCallback.builder()
        .name("berth_scheduler_backlog_jobs")
        .help("Queued jobs the scheduler may start: not held, not waiting for a time or a job.")
        .callback(cb -> state.get().ifPresent(s -> cb.call(s.eligible().size())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("berth_nodes")
        .help("Nodes by their pbsnodes state (free, job-exclusive, offline, down, ...).")
        .labelNames("state")
        .callback(
            cb ->
                state
                    .get()
                    .ifPresent(
                        s -> {
                          Map<String, Integer> byState = new HashMap<>();
                          for (Node n : s.nodes().values()) {
                            byState.merge(
                                Queries.stateWords(n, s.usage(n.getName())), 1, Integer::sum);
                          }
                          byState.forEach((words, count) -> cb.call(count, words));
                        }))
        .register(registry);
    perNode(
        registry, state, "berth_node_cpus", "CPUs the node offers.", (n, u) -> n.getCpuIdsCount());
    perNode(
        registry,
        state,
        "berth_node_cpus_allocated",
        "CPUs of the node that running jobs hold.",
        (n, u) -> u.cpuJobs().size());
    perNode(registry, state, "berth_node_gpus", "GPUs the node offers.", (n, u) -> n.getGpus());
    perNode(
        registry,
        state,
        "berth_node_gpus_allocated",
        "GPUs of the node that jobs hold (suspended ones too).",
        (n, u) -> u.gpusReserved());
    perNode(
        registry,
        state,
        "berth_node_memory_bytes",
        "The node's physical memory as its mom reports it (0 before its first report).",
        (n, u) -> n.getPhysmem());
    perNode(
        registry,
        state,
        "berth_node_memory_allocated_bytes",
        "Memory of the node that jobs hold (suspended ones too).",
        (n, u) -> u.memReserved());
  }

  private interface NodeValue {
    double of(Node node, NodeUsage usage);
  }

  private static void perNode(
      PrometheusRegistry registry,
      Supplier<Optional<ClusterState>> state,
      String name,
      String help,
      NodeValue value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("node")
        .callback(
            cb ->
                state
                    .get()
                    .ifPresent(
                        s ->
                            s.nodes()
                                .values()
                                .forEach(
                                    n -> cb.call(value.of(n, s.usage(n.getName())), n.getName()))))
        .register(registry);
  }

  static String word(JobState state) {
    return state.name().toLowerCase(Locale.ROOT);
  }
}
