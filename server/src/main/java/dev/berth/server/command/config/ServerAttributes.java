package dev.berth.server.command.config;

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
 * The server's attributes as the code that acts on them reads them: their names, and typed reads.
 * What they are (type, default, who may set them) is core's {@link AttributeTable#SERVER}. Defaults
 * are not stored; an unset attribute reads as its default.
 */
public final class ServerAttributes {
  public static final String SCHEDULING = "scheduling";
  public static final String DEFAULT_QUEUE = "default_queue";
  public static final String MANAGERS = "managers";
  public static final String OPERATORS = "operators";
  public static final String QUERY_OTHER_JOBS = "query_other_jobs";
  public static final String KEEP_COMPLETED = "keep_completed";
  public static final String CGROUP_ENABLE = "cgroup_enable";
  public static final String KILL_DELAY = "kill_delay";
  public static final String MAX_JOB_ARRAY_SIZE = "max_job_array_size";
  public static final String NODE_CHECK_RATE = "node_check_rate";
  public static final String SCHEDULER_ITERATION = "scheduler_iteration";
  public static final String RESOURCES_DEFAULT = "resources_default";
  public static final String RESOURCES_MAX = "resources_max";
  public static final String MAX_RUNNING = "max_running";
  public static final String MAX_USER_RUN = "max_user_run";
  public static final String COMMENT = "comment";
  public static final String ACL_ROOTS = "acl_roots";
  public static final String MAX_USER_QUEUABLE = "max_user_queuable";
  public static final String JOBSCRIPT_MAX_SIZE = "jobscript_max_size";
  public static final String SUBMIT_HOSTS = "submit_hosts";
  public static final String ACL_HOSTS = "acl_hosts";
  public static final String ACL_HOST_ENABLE = "acl_host_enable";
  public static final String BACKFILL_DEPTH = "backfill_depth";
  public static final String STRICT_ORDERING = "strict_ordering";
  public static final String PRIORITY_WEIGHT_AGE = "priority_weight_age";
  public static final String PRIORITY_MAX_AGE = "priority_max_age";
  public static final String PRIORITY_WEIGHT_JOB_SIZE = "priority_weight_job_size";
  public static final String PRIORITY_FAVOR_SMALL = "priority_favor_small";
  public static final String PRIORITY_WEIGHT_QUEUE = "priority_weight_queue";
  public static final String PRIORITY_WEIGHT_USER = "priority_weight_user";
  public static final String PRIORITY_WEIGHT_FAIRSHARE = "priority_weight_fairshare";
  public static final String FAIRSHARE_USER = "fairshare_user";
  public static final String FAIRSHARE_ACCOUNT = "fairshare_account";

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
            number(s, PRIORITY_WEIGHT_AGE),
            number(s, PRIORITY_MAX_AGE),
            number(s, PRIORITY_WEIGHT_JOB_SIZE),
            flag(s, PRIORITY_FAVOR_SMALL),
            number(s, PRIORITY_WEIGHT_QUEUE),
            number(s, PRIORITY_WEIGHT_USER),
            number(s, PRIORITY_WEIGHT_FAIRSHARE)),
        (int) Math.min(Integer.MAX_VALUE, number(s, BACKFILL_DEPTH)),
        flag(s, STRICT_ORDERING));
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
        shares(s, FAIRSHARE_USER),
        DecayedUsage.valuesAt(s.accountUsage(), nowMillis, halfLife),
        shares(s, FAIRSHARE_ACCOUNT),
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
