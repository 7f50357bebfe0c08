package dev.berth.mom.tm;

import dev.berth.core.Sizes;
import java.time.Duration;

/**
 * What the jobs' task-manager connections may make a mom hold, per connection, per job and for the
 * node, so that the total stays a small part of the mom's heap (1 GiB under berth-mom.service, and
 * in {@code berth up} the server's heap, which the mom shares). Processes that are no job's are
 * refused before anything they send is read, so they hold nothing but the moment of their refusal.
 *
 * <p>A request is counted from its first byte until the job's task manager is done with it: a spawn
 * until its node has started the task, since it is kept to be sent again until then. Requests wait
 * for room (at most {@code frameDeadline} from their first byte, then the connection is refused);
 * answers and relayed output are counted until written, and a connection whose answers do not fit
 * (its process does not read them) is dropped.
 *
 * @param frameBytes the largest request, counted as its bytes plus {@link #STRING_COST} for each
 *     argument and environment variable of a spawn: a spawn carries its caller's whole environment,
 *     which a task's node gets in one Artery message (at most 2 MiB, berth.conf) and which Linux
 *     passes to a process in at most a quarter of its stack limit (2 MiB by default), and a job's
 *     own environment is at most 256 KiB (the server's limit for a job's attributes)
 * @param connectionBytes requests one connection may have the mom hold
 * @param jobBytes requests all connections of one job may have the mom hold
 * @param nodeBytes requests of all jobs together
 * @param jobReplyBytes answers and relayed output written to a job's connections and not yet read
 * @param nodeReplyBytes the same for all jobs together
 * @param jobConnections connections one job may have open
 * @param nodeConnections connections of all jobs together; each has two threads, one reading and
 *     one writing
 * @param frameDeadline a request must arrive whole within this long of its first byte, waiting for
 *     room in a budget included
 */
public record TmLimits(
    int frameBytes,
    long connectionBytes,
    long jobBytes,
    long nodeBytes,
    long jobReplyBytes,
    long nodeReplyBytes,
    int jobConnections,
    int nodeConnections,
    Duration frameDeadline) {

  /**
   * What each argument and environment variable of a spawn costs the mom besides its bytes while it
   * is parsed, copied for the task and kept until the task starts (measured: about 170 bytes for an
   * empty variable).
   */
  static final int STRING_COST = 192;

  /**
   * The heap one open connection takes besides its requests and answers, with room to spare: its
   * two threads' objects, its channel, stream and queue come to about 2 KiB.
   */
  public static final int CONNECTION_COST = 8 << 10;

  public static final TmLimits DEFAULTS =
      new TmLimits(
          1 << 20,
          2 << 20,
          8 << 20,
          32 << 20,
          16 << 20,
          64 << 20,
          512,
          1024,
          Duration.ofSeconds(30));

  public TmLimits {
    if (connectionBytes < frameBytes || jobBytes < connectionBytes || nodeBytes < 2 * jobBytes) {
      throw new IllegalArgumentException(
          "the budgets must nest: frame <= connection <= job <= node / 2");
    }
    if (nodeReplyBytes < 2 * jobReplyBytes || nodeConnections < 2 * jobConnections) {
      throw new IllegalArgumentException("the node must have room for two jobs at their limits");
    }
  }

  /** The most the task managers of all jobs together may make the mom hold. */
  public long worstCaseHeap() {
    return nodeBytes + nodeReplyBytes + (long) nodeConnections * CONNECTION_COST;
  }

  /** Threads the connections may take at most. */
  public int worstCaseThreads() {
    return 2 * nodeConnections;
  }

  /** Bytes for a message: {@code 1mb}, {@code 1536kb}. */
  static String size(long bytes) {
    return Sizes.format(bytes);
  }
}
