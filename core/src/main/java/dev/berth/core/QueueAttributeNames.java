package dev.berth.core;

/**
 * A queue's attribute names, as qmgr sets and prints them and qstat -Q shows them: those of {@link
 * dev.berth.core.pbs.AttributeTable#QUEUE}, in its order.
 */
public final class QueueAttributeNames {
  public static final String QUEUE_TYPE = "queue_type";
  public static final String ENABLED = "enabled";
  public static final String STARTED = "started";
  public static final String PRIORITY = "Priority";
  public static final String MAX_QUEUABLE = "max_queuable";
  public static final String MAX_USER_QUEUABLE = "max_user_queuable";
  public static final String MAX_RUNNING = "max_running";
  public static final String MAX_USER_RUN = "max_user_run";
  public static final String KEEP_COMPLETED = "keep_completed";
  public static final String KILL_DELAY = "kill_delay";
  public static final String RESOURCES_DEFAULT = "resources_default";
  public static final String RESOURCES_MAX = "resources_max";
  public static final String RESOURCES_MIN = "resources_min";
  public static final String ACL_USER_ENABLE = "acl_user_enable";
  public static final String ACL_USERS = "acl_users";

  /**
   * Its jobs go before other queues' and may requeue or suspend running jobs of preemptable queues.
   */
  public static final String PREEMPTOR = "preemptor";

  /** How its running jobs may be preempted: off (unset), requeue or suspend. */
  public static final String PREEMPT_MODE = "preempt_mode";

  public static final String COMMENT = "comment";

  /** What nobody sets, from here on: the server counts these for each answer. */
  public static final String TOTAL_JOBS = "total_jobs";

  public static final String STATE_COUNT = "state_count";

  private QueueAttributeNames() {}
}
