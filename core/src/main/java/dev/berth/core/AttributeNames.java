package dev.berth.core;

/**
 * Torque's job attribute names (pbs_ifl.h), the vocabulary qsub and qalter send and qstat -f
 * prints: first what an owner sets ({@link dev.berth.core.pbs.AttributeTable#JOB}), then what the
 * server keeps of a job and qstat shows beside it ({@link
 * dev.berth.core.pbs.AttributeTable#JOB_STATUS}). Resource requests travel as {@link
 * #RESOURCE_LIST} with the resource name beside it.
 */
public final class AttributeNames {
  public static final String JOB_NAME = "Job_Name";
  public static final String RESOURCE_LIST = "Resource_List";
  public static final String OUTPUT_PATH = "Output_Path";
  public static final String ERROR_PATH = "Error_Path";
  public static final String JOIN_PATH = "Join_Path";
  public static final String KEEP_FILES = "Keep_Files";
  public static final String HOLD_TYPES = "Hold_Types";
  public static final String PRIORITY = "Priority";
  public static final String DESTINATION = "destination";
  public static final String ACCOUNT_NAME = "Account_Name";
  public static final String MAIL_POINTS = "Mail_Points";
  public static final String MAIL_USERS = "Mail_Users";
  public static final String SHELL_PATH_LIST = "Shell_Path_List";
  public static final String RERUNABLE = "Rerunable";
  public static final String VARIABLE_LIST = "Variable_List";
  public static final String INIT_WORK_DIR = "init_work_dir";
  public static final String WORK_DIR = "work_dir";
  public static final String EXECUTION_TIME = "Execution_Time";
  public static final String CHECKPOINT = "Checkpoint";
  public static final String JOB_ARRAY_REQUEST = "job_array_request";
  public static final String DEPEND = "depend";
  public static final String NODE_EXCLUSIVE = "node_exclusive";
  public static final String SUBMIT_ARGS = "submit_args";
  public static final String SUBMIT_HOST = "submit_host";
  public static final String INTERACTIVE = "interactive";
  public static final String INTER_CMD = "inter_cmd";
  public static final String GROUP_LIST = "group_list";
  public static final String UMASK = "umask";
  public static final String JOB_RADIX = "job_radix";

  /** Torque's {@code -W x=}, and {@code -W} without {@code =}: recorded and shown. */
  public static final String X = "x";

  public static final String CONTAINER_IMAGE = "container_image";
  public static final String CONTAINER_MOUNTS = "container_mounts";
  public static final String CONTAINER_WORKDIR = "container_workdir";
  public static final String CONTAINER_ENV = "container_env";
  public static final String CONTAINER_WRITABLE = "container_writable";
  public static final String CONTAINER_REMAP_ROOT = "container_remap_root";
  public static final String CONTAINER_NAME = "container_name";

  /** sbatch's mark: the job runs as Slurm runs a batch job (docs/slurm.md). */
  public static final String SUBMIT_STYLE = "submit_style";

  /** The value of {@link #SUBMIT_STYLE} that sbatch sends. */
  public static final String SBATCH = "sbatch";

  // What nobody sets: the server keeps it, or works it out for each answer.
  public static final String JOB_OWNER = "Job_Owner";
  public static final String RESOURCES_USED = "resources_used";
  public static final String JOB_STATE = "job_state";
  public static final String QUEUE = "queue";
  public static final String SERVER = "server";
  public static final String CTIME = "ctime";
  public static final String EXEC_GPUS = "exec_gpus";
  public static final String EXEC_HOST = "exec_host";
  public static final String MTIME = "mtime";
  public static final String QTIME = "qtime";
  public static final String SESSION_ID = "session_id";
  public static final String EUSER = "euser";
  public static final String EGROUP = "egroup";
  public static final String COMMENT = "comment";
  public static final String ETIME = "etime";
  public static final String EXIT_STATUS = "exit_status";
  public static final String JOB_ARRAY_ID = "job_array_id";
  public static final String START_TIME = "start_time";

  /** Torque's {@code Walltime.Remaining} of a running job. */
  public static final String WALLTIME = "Walltime";

  public static final String START_COUNT = "start_count";
  public static final String COMP_TIME = "comp_time";
  public static final String CGROUP_ENABLE = "cgroup_enable";
  public static final String EXIT_REASON = "exit_reason";
  public static final String SCHED_PRIORITY = "sched_priority";
  public static final String SCHED_PRIORITY_FACTORS = "sched_priority_factors";

  /** OpenPBS's {@code estimated.start_time}. */
  public static final String ESTIMATED = "estimated";

  public static final String PLANNED_WALLTIME = "planned_walltime";

  private AttributeNames() {}
}
