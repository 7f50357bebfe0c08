package dev.berth.server.command.config;

import dev.berth.core.ServerAttributeNames;
import dev.berth.core.Sizes;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Error;
import dev.berth.scheduler.DecayedUsage;
import dev.berth.scheduler.FairShare;
import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.SchedulerSettings;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.state.ClusterState;
import java.util.HashMap;
import java.util.Map;

/**
 * The server's attributes as the code that acts on them reads them: typed reads by core's {@link
 * ServerAttributeNames}. What they are (type, default, who may set them) is core's {@link
 * AttributeTable#SERVER}. Defaults are not stored; an unset attribute reads as its default.
 */
public final class ServerAttributes {
  static final Map<String, AttributeSpec> SPECS = AttributeSpec.of(AttributeTable.SERVER);

  /** Defaults shown by qmgr list and used when unset. */
  static final Map<String, String> DEFAULTS = AttributeTable.SERVER.defaults();

  /**
   * The largest jobscript_max_size: what a run request to a node (Artery frames of 2 MiB, with the
   * job twice) and a Kafka journal record (2 MiB, with the job) still carry.
   */
  static final long LARGEST_SCRIPT = 1 << 20;

  private ServerAttributes() {}

  /** The defaults, for status displays. */
  public static Map<String, String> defaults() {
    return DEFAULTS;
  }

  static AttributeSpec spec(String name) {
    AttributeSpec spec = SPECS.get(name);
    if (spec == null) {
      throw new CommandException(
          Error.Code.UNKNOWN_ATTRIBUTE,
          "unknown server attribute '"
              + AttributeValues.shown(name)
              + "' (see docs/qmgr.md for the list)");
    }
    return spec;
  }

  public static String get(ClusterState s, String name) {
    return s.serverAttribute(name).orElse(DEFAULTS.get(name));
  }

  public static boolean flag(ClusterState s, String name) {
    return "True".equals(get(s, name));
  }

  public static long number(ClusterState s, String name) {
    String v = get(s, name);
    return v == null ? 0 : Long.parseLong(v);
  }

  /** How the scheduler chooses, as the priority and backfill attributes say. */
  public static SchedulerSettings scheduler(ClusterState s) {
    return new SchedulerSettings(
        new PriorityWeights(
            number(s, ServerAttributeNames.PRIORITY_WEIGHT_AGE),
            number(s, ServerAttributeNames.PRIORITY_MAX_AGE),
            number(s, ServerAttributeNames.PRIORITY_WEIGHT_JOB_SIZE),
            flag(s, ServerAttributeNames.PRIORITY_FAVOR_SMALL),
            number(s, ServerAttributeNames.PRIORITY_WEIGHT_QUEUE),
            number(s, ServerAttributeNames.PRIORITY_WEIGHT_USER),
            number(s, ServerAttributeNames.PRIORITY_WEIGHT_FAIRSHARE)),
        (int) Math.min(Integer.MAX_VALUE, number(s, ServerAttributeNames.BACKFILL_DEPTH)),
        flag(s, ServerAttributeNames.STRICT_ORDERING));
  }

  /**
   * The users' and accounts' fair-share factors at {@code nowMillis}: their usage decayed to then,
   * against the shares set with {@code fairshare_user.NAME} and {@code fairshare_account.NAME} (1
   * for a name without).
   */
  public static FairShare fairShare(ClusterState s, long nowMillis) {
    long halfLife = s.halfLife();
    return new FairShare(
        DecayedUsage.valuesAt(s.userUsage(), nowMillis, halfLife),
        shares(s, ServerAttributeNames.FAIRSHARE_USER),
        DecayedUsage.valuesAt(s.accountUsage(), nowMillis, halfLife),
        shares(s, ServerAttributeNames.FAIRSHARE_ACCOUNT),
        1);
  }

  private static Map<String, Long> shares(ClusterState s, String attribute) {
    String prefix = attribute + ".";
    Map<String, Long> result = new HashMap<>();
    s.serverAttributes()
        .subMap(prefix, prefix + Character.MAX_VALUE)
        .forEach((key, value) -> result.put(key.substring(prefix.length()), Long.parseLong(value)));
    return result;
  }

  /** A size attribute in bytes (0 when unset without a default). */
  public static long bytes(ClusterState s, String name) {
    String v = get(s, name);
    return v == null ? 0 : Sizes.parseBytes(v);
  }
}
