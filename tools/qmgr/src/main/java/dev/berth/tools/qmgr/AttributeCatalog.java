package dev.berth.tools.qmgr;

import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.core.pbs.ValueType;
import dev.berth.proto.Manage.ObjectType;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What qmgr knows about attribute names, without validating them (the server does that): the order
 * Torque's {@code qmgr list} prints them in (its attribute definition order), and, from core's
 * {@link AttributeTable}, which are read only (left out of {@code print}) and which hold lists
 * ({@code print} writes one {@code +=} line per item); a word is an attribute name when either
 * knows it, so that {@code list server scheduling} reads {@code scheduling} as an attribute rather
 * than a server name.
 */
final class AttributeCatalog {
  /** Where attributes that are not in an order list go. */
  private static final String OTHERS = "*";

  private static final List<String> SERVER_ORDER =
      List.of(
          "server_state",
          "scheduling",
          "max_running",
          "max_user_run",
          "max_group_run",
          "total_jobs",
          "state_count",
          "acl_host_enable",
          "acl_hosts",
          "acl_user_enable",
          "acl_users",
          "acl_roots",
          "managers",
          "operators",
          "default_queue",
          "log_events",
          "mail_from",
          "query_other_jobs",
          "resources_available",
          "resources_default",
          "resources_max",
          "resources_assigned",
          "resources_cost",
          "system_cost",
          "scheduler_iteration",
          "node_ping_rate",
          "node_check_rate",
          "tcp_timeout",
          "comment",
          "default_node",
          "node_pack",
          "node_suffix",
          "job_stat_rate",
          "poll_jobs",
          "log_level",
          "down_on_error",
          "disable_server_id_check",
          "job_nanny",
          "owner_purge",
          "queue_centric_limits",
          "mom_job_sync",
          "mail_domain",
          "pbs_version",
          "kill_delay",
          "acl_logic_or",
          "acl_group_sloppy",
          "keep_completed",
          "submit_hosts",
          "allow_node_submit",
          "allow_proxy_user",
          "auto_node_np",
          "log_file_max_size",
          "log_file_roll_depth",
          "log_keep_days",
          "next_job_number",
          "tokens",
          "net_counter",
          "extra_resc",
          "server_name",
          "sched_version",
          "accounting_keep_days",
          "lock_file",
          "lock_file_update_time",
          "lock_file_check_time",
          "credential_lifetime",
          "job_must_report",
          "checkpoint_dir",
          "display_job_server_suffix",
          "job_suffix_alias",
          "mail_subject_fmt",
          "mail_body_fmt",
          "np_default",
          "clone_batch_size",
          "clone_batch_delay",
          "job_start_timeout",
          "job_force_cancel_time",
          "max_job_array_size",
          "max_slot_limit",
          "record_job_info",
          "record_job_script",
          "job_log_file_max_size",
          "job_log_file_roll_depth",
          "job_log_keep_days",
          "authorized_users",
          "min_threads",
          "max_threads",
          "thread_idle_seconds",
          "moab_array_compatible",
          "no_mail_force",
          "cray_enabled",
          "interactive_jobs_can_roam",
          "max_user_queuable",
          "automatic_requeue_exit_code",
          "nppcu",
          "job_sync_timeout",
          "pass_cpu_clock",
          "copy_on_rerun",
          OTHERS);

  /**
   * Torque keeps {@code enabled} and {@code started} last so that {@code print} enables a queue
   * only after the rest of its definition; unknown attributes go before them for the same reason.
   */
  private static final List<String> QUEUE_ORDER =
      List.of(
          "queue_type",
          "priority",
          "hostlist",
          "rerunable",
          "max_queuable",
          "max_user_queuable",
          "total_jobs",
          "state_count",
          "max_report",
          "max_running",
          "acl_host_enable",
          "acl_hosts",
          "acl_user_enable",
          "acl_users",
          "from_route_only",
          "resources_max",
          "resources_min",
          "resources_default",
          "acl_group_enable",
          "acl_groups",
          "acl_logic_or",
          "acl_group_sloppy",
          "mtime",
          "disallowed_types",
          "checkpoint_dir",
          "checkpoint_min",
          "checkpoint_defaults",
          "rendezvous_retry",
          "reserved_expedite",
          "reserved_sync",
          "resources_available",
          "resources_assigned",
          "kill_delay",
          "max_user_run",
          "max_group_run",
          "keep_completed",
          "is_transit",
          "route_destinations",
          "alt_router",
          "route_held_jobs",
          "route_waiting_jobs",
          "route_retry_time",
          "route_lifetime",
          OTHERS,
          "enabled",
          "started");

  private static final List<String> NODE_ORDER =
      List.of(
          "state",
          "power_state",
          "np",
          "properties",
          "ntype",
          "jobs",
          "status",
          "note",
          "gpus",
          "gpu_status",
          OTHERS);

  private static final Map<ObjectType, Map<String, Integer>> RANKS =
      Map.of(
          ObjectType.SERVER, ranks(SERVER_ORDER),
          ObjectType.QUEUE, ranks(QUEUE_ORDER),
          ObjectType.NODE, ranks(NODE_ORDER));

  private AttributeCatalog() {}

  /** Whether {@code name} (without a resource) is an attribute qmgr knows for this object type. */
  static boolean isKnown(ObjectType type, String name) {
    String key = key(name);
    return (RANKS.get(type).containsKey(key) && !key.equals(OTHERS))
        || definition(type, name).isPresent();
  }

  /** Position in Torque's listing order; attributes it does not know share one position. */
  static int rank(ObjectType type, String name) {
    Map<String, Integer> ranks = RANKS.get(type);
    return ranks.getOrDefault(key(name), ranks.get(OTHERS));
  }

  static boolean isReadOnly(ObjectType type, String name) {
    return definition(type, name).map(AttributeDef::readOnly).orElse(false);
  }

  static boolean isList(ObjectType type, String name) {
    return definition(type, name).map(d -> d.type() == ValueType.LIST).orElse(false);
  }

  /** Berth's definition of the attribute (core's vocabulary, which the server checks by). */
  private static Optional<AttributeDef> definition(ObjectType type, String name) {
    AttributeTable table =
        switch (type) {
          case SERVER -> AttributeTable.SERVER;
          case QUEUE -> AttributeTable.QUEUE;
          case NODE -> AttributeTable.NODE;
          default -> null;
        };
    return table == null ? Optional.empty() : table.findIgnoringCase(name);
  }

  private static String key(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  private static Map<String, Integer> ranks(List<String> order) {
    Map<String, Integer> ranks = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      ranks.put(order.get(i), i);
    }
    return Map.copyOf(ranks);
  }
}
