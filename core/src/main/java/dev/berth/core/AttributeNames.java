package dev.berth.core;

/**
 * Torque's job attribute names (pbs_ifl.h), the vocabulary qsub and qalter send and qstat -f
 * prints. Resource requests travel as {@link #RESOURCE_LIST} with the resource name beside it.
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

  private AttributeNames() {}
}
