package dev.berth.server.query;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ResourcesUsed;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The last status each mom reported: its status line (load, free memory, ...) and what its running
 * jobs have used so far. Telemetry, not state: it is not journaled and starts empty after a
 * restart, like Torque's node status; a job's final usage comes with its obit, as an event.
 */
public final class NodeTelemetry {
  /** The most jobs a node's usage is taken for; a node runs at most one per CPU. */
  static final int MAX_JOBS = 4096;

  private final Map<String, Map<String, String>> status = new ConcurrentHashMap<>();
  private final Map<String, Long> reportedAt = new ConcurrentHashMap<>();
  private final Map<String, Map<String, ResourcesUsed>> usage = new ConcurrentHashMap<>();

  /** {@code node}'s status items, as its mom reported them at {@code atSeconds} (epoch). */
  public void record(String node, Map<String, String> items, long atSeconds) {
    status.put(node, Map.copyOf(items));
    reportedAt.put(node, atSeconds);
  }

  public Map<String, String> status(String node) {
    return status.getOrDefault(node, Map.of());
  }

  /** When {@code node}'s mom last reported its status (epoch seconds), or 0: pbsnodes' rectime. */
  public long reportedAt(String node) {
    return reportedAt.getOrDefault(node, 0L);
  }

  /**
   * What {@code node}'s jobs have used so far, as its mom measured it; taken only for jobs that run
   * on that node ({@code runsHere}), since a mom speaks for its own node only.
   */
  public void recordUsage(
      String node, Map<String, ResourcesUsed> jobs, Predicate<String> runsHere) {
    Map<String, ResourcesUsed> kept = new HashMap<>();
    for (Map.Entry<String, ResourcesUsed> e : jobs.entrySet()) {
      if (kept.size() < MAX_JOBS && runsHere.test(e.getKey())) {
        kept.put(e.getKey(), e.getValue());
      }
    }
    usage.put(node, Map.copyOf(kept));
  }

  /**
   * A running job's resources_used so far: the last reports of its nodes that are {@code up} summed
   * (a node that stopped reporting says nothing of now), and its walltime from its start, less the
   * time it spent suspended. Empty when none of those nodes reported any.
   */
  public Optional<ResourcesUsed> soFar(Job job, long nowSeconds, Predicate<String> up) {
    ResourcesUsed.Builder sum = ResourcesUsed.newBuilder();
    boolean any = false;
    for (String node :
        job.getExecNodesList().stream()
            .map(NodeAllocation::getNode)
            .distinct()
            .filter(up)
            .toList()) {
      ResourcesUsed u = usage.getOrDefault(node, Map.of()).get(job.getId());
      if (u != null) {
        any = true;
        sum.setCput(sum.getCput() + u.getCput())
            .setMem(sum.getMem() + u.getMem())
            .setVmem(sum.getVmem() + u.getVmem())
            .setOomKills(sum.getOomKills() + u.getOomKills())
            .setIoRead(sum.getIoRead() + u.getIoRead())
            .setIoWrite(sum.getIoWrite() + u.getIoWrite());
      }
    }
    if (!any) {
      return Optional.empty();
    }
    long suspended =
        job.getSuspendedSeconds()
            + (job.getSuspendedAt() > 0 ? Math.max(0, nowSeconds - job.getSuspendedAt()) : 0);
    return Optional.of(
        sum.setWalltime(Math.max(0, nowSeconds - job.getStartTime() - suspended)).build());
  }
}
