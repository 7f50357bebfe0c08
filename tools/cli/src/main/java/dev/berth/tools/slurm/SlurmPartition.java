package dev.berth.tools.slurm;

import dev.berth.core.Durations;
import dev.berth.proto.Queue;
import dev.berth.proto.ReservationStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Berth queue as Slurm's commands show a partition: available (up), down (jobs queue, none
 * start), drain (no new jobs) or inactive, from enabled and started; its time limit from
 * resources_max.walltime; and its nodes: every node, but a reservation's queue (pbs_rsub) only the
 * reservation's.
 */
public final class SlurmPartition {
  private SlurmPartition() {}

  /** up, down, drain or inact. */
  public static String avail(Queue queue) {
    boolean enabled = "True".equalsIgnoreCase(queue.getAttributesOrDefault("enabled", "False"));
    boolean started = "True".equalsIgnoreCase(queue.getAttributesOrDefault("started", "False"));
    return enabled ? (started ? "up" : "down") : (started ? "drain" : "inact");
  }

  /** The queue's resources_max.walltime in seconds; 0 without one. */
  public static long maxSeconds(Queue queue) {
    return seconds(queue, "resources_max.walltime");
  }

  /**
   * A duration attribute of the queue ({@code resources_default.walltime}) in seconds; 0 if none.
   */
  public static long seconds(Queue queue, String attribute) {
    String value = queue.getAttributesOrDefault(attribute, "");
    if (value.isEmpty()) {
      return 0;
    }
    try {
      return Durations.parseSeconds(value);
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** The limit as sinfo prints it: {@code 1-00:00:00}, or {@code infinite}. */
  public static String limit(Queue queue) {
    long secs = maxSeconds(queue);
    return secs == 0 ? "infinite" : SlurmTimes.clock(secs);
  }

  /** Each reservation's queue with its nodes. */
  public static Map<String, List<String>> reserved(List<ReservationStatus> reservations) {
    Map<String, List<String>> reserved = new LinkedHashMap<>();
    for (ReservationStatus rs : reservations) {
      reserved.put(rs.getReservation().getQueue(), rs.getReservation().getNodesList());
    }
    return reserved;
  }

  /**
   * Whether the queue runs jobs on the node.
   *
   * @param reserved each reservation's queue with its nodes
   */
  public static boolean serves(Map<String, List<String>> reserved, String queue, String node) {
    List<String> nodes = reserved.get(queue);
    return nodes == null || nodes.contains(node);
  }
}
