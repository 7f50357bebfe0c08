package dev.berth.core;

/**
 * The server's attribute names, as qmgr sets and prints them and qstat -B shows them: those of
 * {@link dev.berth.core.pbs.AttributeTable#SERVER}, in its order.
 */
public final class ServerAttributeNames {
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
  public static final String BACKFILL_DEPTH = "backfill_depth";
  public static final String STRICT_ORDERING = "strict_ordering";
  public static final String PRIORITY_WEIGHT_AGE = "priority_weight_age";
  public static final String PRIORITY_MAX_AGE = "priority_max_age";
  public static final String PRIORITY_WEIGHT_JOB_SIZE = "priority_weight_job_size";
  public static final String PRIORITY_FAVOR_SMALL = "priority_favor_small";
  public static final String PRIORITY_WEIGHT_QUEUE = "priority_weight_queue";
  public static final String PRIORITY_WEIGHT_USER = "priority_weight_user";
  public static final String PRIORITY_WEIGHT_FAIRSHARE = "priority_weight_fairshare";

  /** Usage halves in this many seconds. */
  public static final String FAIRSHARE_HALF_LIFE = "fairshare_half_life";

  /** CPU-seconds one GPU-second counts as. */
  public static final String FAIRSHARE_WEIGHT_GPU = "fairshare_weight_gpu";

  /** CPU-seconds one GiB-second of memory counts as. */
  public static final String FAIRSHARE_WEIGHT_MEM_GB = "fairshare_weight_mem_gb";

  public static final String FAIRSHARE_USER = "fairshare_user";
  public static final String FAIRSHARE_ACCOUNT = "fairshare_account";
  public static final String RESOURCES_DEFAULT = "resources_default";
  public static final String RESOURCES_MAX = "resources_max";
  public static final String MAX_RUNNING = "max_running";
  public static final String MAX_USER_RUN = "max_user_run";
  public static final String MAX_USER_QUEUABLE = "max_user_queuable";
  public static final String ACL_ROOTS = "acl_roots";
  public static final String SUBMIT_HOSTS = "submit_hosts";
  public static final String ACL_HOST_ENABLE = "acl_host_enable";
  public static final String ACL_HOSTS = "acl_hosts";
  public static final String JOBSCRIPT_MAX_SIZE = "jobscript_max_size";
  public static final String MAIL_DOMAIN = "mail_domain";
  public static final String MAIL_FROM = "mail_from";
  public static final String MAIL_SUBJECT_FMT = "mail_subject_fmt";
  public static final String MAIL_BODY_FMT = "mail_body_fmt";
  public static final String NO_MAIL_FORCE = "no_mail_force";
  public static final String SENDMAIL_PATH = "sendmail_path";
  public static final String COMMENT = "comment";

  /** Kept in the server's state rather than among its attributes; qmgr sets it. */
  public static final String NEXT_JOB_NUMBER = "next_job_number";

  /** What nobody sets, from here on: the server works these out for each answer. */
  public static final String SERVER_STATE = "server_state";

  public static final String TOTAL_JOBS = "total_jobs";
  public static final String STATE_COUNT = "state_count";
  public static final String PBS_VERSION = "pbs_version";

  private ServerAttributeNames() {}
}
