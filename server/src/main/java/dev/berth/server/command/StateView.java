package dev.berth.server.command;

import dev.berth.proto.Job;
import dev.berth.proto.Node;
import dev.berth.scheduler.ClusterView;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.EligibleKey;
import dev.berth.server.state.NodeUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The scheduler's read-only view of an immutable {@link ClusterState}: node capacities from the
 * nodes and what jobs hold on them, and the queued jobs of started queues in order.
 */
public final class StateView implements ClusterView {
  private final ClusterState state;
  private final List<NodeCapacity> nodes;

  public StateView(ClusterState state) {
    this.state = state;
    this.nodes = capacities(state);
  }

  public static List<NodeCapacity> capacities(ClusterState s) {
    List<NodeCapacity> result = new ArrayList<>(s.nodes().size());
    for (Node n : s.nodes().values()) {
      NodeUsage u = s.usage(n.getName());
      List<Integer> free =
          n.getCpuIdsList().stream().filter(c -> !u.cpuJobs().containsKey(c)).toList();
      result.add(
          new NodeCapacity(
              n.getName(),
              Set.copyOf(n.getPropertiesList()),
              n.getCpuIdsList(),
              free,
              n.getPhysmem(),
              n.getPhysmem() - u.memReserved(),
              n.getGpus(),
              n.getGpus() - u.gpusReserved(),
              n.getRegistered() && !n.getDown() && !n.getOffline(),
              u.idle()));
    }
    return result;
  }

  @Override
  public List<NodeCapacity> nodes() {
    return nodes;
  }

  @Override
  public Iterable<Job> eligibleJobs() {
    Set<String> stopped = new HashSet<>();
    state
        .queues()
        .values()
        .forEach(
            q -> {
              if (!QueueAttributes.flag(q, QueueAttributes.STARTED)) {
                stopped.add(q.getName());
              }
            });
    return () ->
        new Iterator<>() {
          private final Iterator<EligibleKey> keys = state.eligible().iterator();
          private Job next = advance();

          private Job advance() {
            while (keys.hasNext()) {
              Job j = state.job(keys.next().jobId()).orElseThrow();
              if (!stopped.contains(j.getQueue())) {
                return j;
              }
            }
            return null;
          }

          @Override
          public boolean hasNext() {
            return next != null;
          }

          @Override
          public Job next() {
            Job j = next;
            next = advance();
            return j;
          }
        };
  }

  @Override
  public int runningSubjobs(String arrayParentId) {
    return state.arrayCounts(arrayParentId).running();
  }
}
