package dev.berth.server.command.config;

import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.scheduler.DecayedUsage;
import dev.berth.scheduler.FairShare;
import dev.berth.scheduler.PriorityWeights;
import dev.berth.scheduler.SchedulerSettings;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeSpec.Type;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.mail.MailSettings;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.UsageCharges;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The server's attributes: what qmgr may set, their defaults, and typed reads for the code that
 * acts on them. Defaults are not stored; an unset attribute reads as its default.
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

  static final Map<String, AttributeSpec> SPECS =
      Stream.of(
              AttributeSpec.of(SCHEDULING, Type.BOOLEAN),
              AttributeSpec.of(DEFAULT_QUEUE, Type.STRING),
              AttributeSpec.of(MANAGERS, Type.LIST),
              AttributeSpec.of(OPERATORS, Type.LIST),
              AttributeSpec.of(QUERY_OTHER_JOBS, Type.BOOLEAN),
              AttributeSpec.of(KEEP_COMPLETED, Type.INTEGER),
              AttributeSpec.of(CGROUP_ENABLE, Type.BOOLEAN),
              AttributeSpec.of(KILL_DELAY, Type.INTEGER),
              AttributeSpec.of(MAX_JOB_ARRAY_SIZE, Type.COUNT),
              AttributeSpec.of(NODE_CHECK_RATE, Type.INTEGER),
              AttributeSpec.of(SCHEDULER_ITERATION, Type.INTEGER),
              AttributeSpec.of(RESOURCES_DEFAULT, Type.RESOURCE),
              AttributeSpec.of(RESOURCES_MAX, Type.RESOURCE),
              AttributeSpec.of(MAX_RUNNING, Type.INTEGER),
              AttributeSpec.of(MAX_USER_RUN, Type.INTEGER),
              AttributeSpec.of(COMMENT, Type.STRING),
              AttributeSpec.of(ACL_ROOTS, Type.LIST),
              AttributeSpec.of(MAX_USER_QUEUABLE, Type.COUNT),
              AttributeSpec.of(JOBSCRIPT_MAX_SIZE, Type.SIZE),
              AttributeSpec.of(SUBMIT_HOSTS, Type.LIST),
              AttributeSpec.of(ACL_HOSTS, Type.LIST),
              AttributeSpec.of(ACL_HOST_ENABLE, Type.BOOLEAN),
              AttributeSpec.of(BACKFILL_DEPTH, Type.COUNT),
              AttributeSpec.of(STRICT_ORDERING, Type.BOOLEAN),
              AttributeSpec.of(PRIORITY_WEIGHT_AGE, Type.COUNT),
              AttributeSpec.of(PRIORITY_MAX_AGE, Type.DURATION),
              AttributeSpec.of(PRIORITY_WEIGHT_JOB_SIZE, Type.COUNT),
              AttributeSpec.of(PRIORITY_FAVOR_SMALL, Type.BOOLEAN),
              AttributeSpec.of(PRIORITY_WEIGHT_QUEUE, Type.COUNT),
              AttributeSpec.of(PRIORITY_WEIGHT_USER, Type.COUNT),
              AttributeSpec.of(PRIORITY_WEIGHT_FAIRSHARE, Type.COUNT),
              AttributeSpec.of(UsageCharges.HALF_LIFE, Type.DURATION),
              AttributeSpec.of(UsageCharges.GPU_WEIGHT, Type.COUNT),
              AttributeSpec.of(UsageCharges.MEMORY_WEIGHT, Type.COUNT),
              AttributeSpec.of(FAIRSHARE_USER, Type.SHARES),
              AttributeSpec.of(FAIRSHARE_ACCOUNT, Type.SHARES),
              AttributeSpec.of(MailSettings.MAIL_DOMAIN, Type.STRING),
              AttributeSpec.of(MailSettings.MAIL_FROM, Type.STRING),
              AttributeSpec.of(MailSettings.MAIL_SUBJECT_FMT, Type.STRING),
              AttributeSpec.of(MailSettings.MAIL_BODY_FMT, Type.STRING),
              AttributeSpec.of(MailSettings.SENDMAIL_PATH, Type.STRING),
              AttributeSpec.of(MailSettings.NO_MAIL_FORCE, Type.BOOLEAN),
              AttributeSpec.of("next_job_number", Type.INTEGER),
              AttributeSpec.readOnly("server_state", Type.STRING),
              AttributeSpec.readOnly("total_jobs", Type.INTEGER),
              AttributeSpec.readOnly("state_count", Type.STRING),
              AttributeSpec.readOnly("pbs_version", Type.STRING))
          .collect(Collectors.toUnmodifiableMap(AttributeSpec::name, Function.identity()));

  /** Defaults shown by qmgr list and used when unset. */
  static final Map<String, String> DEFAULTS =
      Map.ofEntries(
          Map.entry(SCHEDULING, "True"),
          Map.entry(QUERY_OTHER_JOBS, "False"),
          Map.entry(KEEP_COMPLETED, "300"),
          Map.entry(CGROUP_ENABLE, "False"),
          Map.entry(KILL_DELAY, "2"),
          Map.entry(MAX_JOB_ARRAY_SIZE, "10000"),
          Map.entry(NODE_CHECK_RATE, "150"),
          Map.entry(SCHEDULER_ITERATION, "60"),
          // OpenPBS's name; its default is 100mb, ours stays under the 1 MiB a Kafka journal
          // record may have by default, since the journal keeps each script with its job.
          Map.entry(JOBSCRIPT_MAX_SIZE, "512kb"),
          Map.entry(BACKFILL_DEPTH, "1"),
          Map.entry(STRICT_ORDERING, "False"),
          Map.entry(PRIORITY_WEIGHT_AGE, "0"),
          Map.entry(PRIORITY_MAX_AGE, "604800"),
          Map.entry(PRIORITY_WEIGHT_JOB_SIZE, "0"),
          Map.entry(PRIORITY_FAVOR_SMALL, "False"),
          Map.entry(PRIORITY_WEIGHT_QUEUE, "0"),
          Map.entry(PRIORITY_WEIGHT_USER, "1000"),
          Map.entry(PRIORITY_WEIGHT_FAIRSHARE, "0"),
          Map.entry(MailSettings.MAIL_FROM, MailSettings.DEFAULT_FROM),
          Map.entry(MailSettings.NO_MAIL_FORCE, "False"),
          Map.entry(UsageCharges.HALF_LIFE, Long.toString(UsageCharges.DEFAULT_HALF_LIFE)),
          Map.entry(UsageCharges.GPU_WEIGHT, Long.toString(UsageCharges.DEFAULT_GPU_WEIGHT)),
          Map.entry(UsageCharges.MEMORY_WEIGHT, Long.toString(UsageCharges.DEFAULT_MEMORY_WEIGHT)));

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
