package dev.berth.server.command.config;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Queue;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.state.ClusterState;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A queue's attributes: what qmgr may set and typed reads, by core's {@link QueueAttributeNames},
 * for the submit and run paths.
 */
public final class QueueAttributes {
  public static final String PREEMPT_OFF = "off";
  public static final String PREEMPT_REQUEUE = "requeue";
  public static final String PREEMPT_SUSPEND = "suspend";

  static final Map<String, AttributeSpec> SPECS = AttributeSpec.of(AttributeTable.QUEUE);

  private QueueAttributes() {}

  static AttributeSpec spec(String name) {
    AttributeSpec spec = SPECS.get(name);
    if (spec == null) {
      throw new CommandException(
          Error.Code.UNKNOWN_ATTRIBUTE,
          "unknown queue attribute '"
              + AttributeValues.shown(name)
              + "' (see docs/qmgr.md for the list)");
    }
    return spec;
  }

  /** Checks values whose type alone does not say enough (queue_type). */
  static String check(Attribute a, String value) {
    if (value != null && a.getName().equals(QueueAttributeNames.QUEUE_TYPE)) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "e", "execution" -> "Execution";
        case "r", "route" ->
            throw new CommandException(
                Error.Code.BAD_VALUE,
                "routing queues are not supported; use queue_type = Execution");
        default ->
            throw new CommandException(
                Error.Code.BAD_VALUE, "illegal value for queue_type: '" + value + "'");
      };
    }
    return value;
  }

  public static Optional<String> get(Queue q, String name) {
    return Optional.ofNullable(q.getAttributesMap().get(name));
  }

  /** Whether {@code queue} exists and is started (its jobs are scheduled). */
  public static boolean started(ClusterState s, String queue) {
    return s.queue(queue).map(q -> flag(q, QueueAttributeNames.STARTED)).orElse(false);
  }

  /** Whether {@code queue} is a preemptor's: its jobs may requeue preemptable running jobs. */
  public static boolean preemptor(ClusterState s, String queue) {
    return s.queue(queue).map(q -> flag(q, QueueAttributeNames.PREEMPTOR)).orElse(false);
  }

  /**
   * How running jobs of {@code queue} may be preempted for a preemptor's job: {@link
   * #PREEMPT_REQUEUE}, {@link #PREEMPT_SUSPEND}, or {@link #PREEMPT_OFF} (also for a preemptor's
   * own queue).
   */
  public static String preemptMode(ClusterState s, String queue) {
    return s.queue(queue)
        .filter(q -> !flag(q, QueueAttributeNames.PREEMPTOR))
        .map(q -> q.getAttributesMap().getOrDefault(QueueAttributeNames.PREEMPT_MODE, PREEMPT_OFF))
        .orElse(PREEMPT_OFF);
  }

  public static boolean flag(Queue q, String name) {
    return "True".equals(q.getAttributesMap().get(name));
  }
}
