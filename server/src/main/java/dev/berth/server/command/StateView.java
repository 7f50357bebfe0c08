package dev.berth.server.command;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.scheduler.ClusterView;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.EligibleKey;
import dev.berth.server.state.JobCounts;
import dev.berth.server.state.NodeUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The scheduler's read-only view of an immutable {@link ClusterState}: node capacities from the
 * nodes and what jobs hold on them, and the queued jobs of started queues in order.
 */
public final class StateView implements ClusterView {
  private static final String ARRAY = "array:";
  private static final String SERVER = "server";
  private static final String QUEUE = "queue:";
  private static final String USER = "user:";
  private static final String QUEUE_USER = "queue-user:";

  private final ClusterState state;
  private List<NodeCapacity> nodes;

  public StateView(ClusterState state) {
    this.state = state;
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

  /** Every node's capacity, worked out on first use (re-checking limits needs none). */
  @Override
  public List<NodeCapacity> nodes() {
    if (nodes == null) {
      nodes = capacities(state);
    }
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
  public Map<String, Integer> limits(Job job) {
    Map<String, Integer> limits = new HashMap<>(4);
    if (!job.getArrayParent().isEmpty() && job.getArraySlotLimit() > 0) {
      limits.put(ARRAY + job.getArrayParent(), job.getArraySlotLimit());
    }
    limit(limits, SERVER, state.serverAttribute(ServerAttributes.MAX_RUNNING));
    limit(limits, USER + job.getEuser(), state.serverAttribute(ServerAttributes.MAX_USER_RUN));
    state
        .queue(job.getQueue())
        .ifPresent(
            q -> {
              limit(
                  limits,
                  QUEUE + q.getName(),
                  QueueAttributes.get(q, ServerAttributes.MAX_RUNNING));
              limit(
                  limits,
                  QUEUE_USER + q.getName() + '\0' + job.getEuser(),
                  QueueAttributes.get(q, ServerAttributes.MAX_USER_RUN));
            });
    return limits;
  }

  private static void limit(Map<String, Integer> limits, String key, Optional<String> max) {
    max.ifPresent(m -> limits.put(key, (int) Math.min(Integer.MAX_VALUE, Long.parseLong(m))));
  }

  @Override
  public int running(String key) {
    if (key.startsWith(ARRAY)) {
      return state.arrayCounts(key.substring(ARRAY.length())).running();
    }
    if (key.equals(SERVER)) {
      return holdingNodes(state.counts());
    }
    if (key.startsWith(QUEUE)) {
      return holdingNodes(state.counts(key.substring(QUEUE.length())));
    }
    if (key.startsWith(USER)) {
      return state.running(new ClusterState.Owner("", key.substring(USER.length())));
    }
    String queueAndUser = key.substring(QUEUE_USER.length());
    int colon = queueAndUser.indexOf('\0');
    return state.running(
        new ClusterState.Owner(
            queueAndUser.substring(0, colon), queueAndUser.substring(colon + 1)));
  }

  /**
   * Whether starting {@code job} now keeps every running-job limit that applies to it: the check
   * the server makes of each decision, since a plan may come from an older view.
   */
  public boolean withinLimits(Job job) {
    for (Map.Entry<String, Integer> limit : limits(job).entrySet()) {
      if (running(limit.getKey()) >= limit.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static int holdingNodes(JobCounts c) {
    return c.count(JobState.RUNNING) + c.count(JobState.EXITING);
  }
}
