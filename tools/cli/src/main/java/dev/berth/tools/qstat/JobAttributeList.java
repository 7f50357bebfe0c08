package dev.berth.tools.qstat;

import static dev.berth.core.AttributeNames.ACCOUNT_NAME;
import static dev.berth.core.AttributeNames.CGROUP_ENABLE;
import static dev.berth.core.AttributeNames.CHECKPOINT;
import static dev.berth.core.AttributeNames.COMMENT;
import static dev.berth.core.AttributeNames.COMP_TIME;
import static dev.berth.core.AttributeNames.CONTAINER_ENV;
import static dev.berth.core.AttributeNames.CONTAINER_IMAGE;
import static dev.berth.core.AttributeNames.CONTAINER_MOUNTS;
import static dev.berth.core.AttributeNames.CONTAINER_NAME;
import static dev.berth.core.AttributeNames.CONTAINER_REMAP_ROOT;
import static dev.berth.core.AttributeNames.CONTAINER_WORKDIR;
import static dev.berth.core.AttributeNames.CONTAINER_WRITABLE;
import static dev.berth.core.AttributeNames.CTIME;
import static dev.berth.core.AttributeNames.DEPEND;
import static dev.berth.core.AttributeNames.EGROUP;
import static dev.berth.core.AttributeNames.ERROR_PATH;
import static dev.berth.core.AttributeNames.ESTIMATED;
import static dev.berth.core.AttributeNames.ETIME;
import static dev.berth.core.AttributeNames.EUSER;
import static dev.berth.core.AttributeNames.EXECUTION_TIME;
import static dev.berth.core.AttributeNames.EXEC_GPUS;
import static dev.berth.core.AttributeNames.EXEC_HOST;
import static dev.berth.core.AttributeNames.EXIT_REASON;
import static dev.berth.core.AttributeNames.EXIT_STATUS;
import static dev.berth.core.AttributeNames.GROUP_LIST;
import static dev.berth.core.AttributeNames.HOLD_TYPES;
import static dev.berth.core.AttributeNames.INIT_WORK_DIR;
import static dev.berth.core.AttributeNames.INTERACTIVE;
import static dev.berth.core.AttributeNames.INTER_CMD;
import static dev.berth.core.AttributeNames.JOB_ARRAY_ID;
import static dev.berth.core.AttributeNames.JOB_ARRAY_REQUEST;
import static dev.berth.core.AttributeNames.JOB_NAME;
import static dev.berth.core.AttributeNames.JOB_OWNER;
import static dev.berth.core.AttributeNames.JOB_RADIX;
import static dev.berth.core.AttributeNames.JOB_STATE;
import static dev.berth.core.AttributeNames.JOIN_PATH;
import static dev.berth.core.AttributeNames.KEEP_FILES;
import static dev.berth.core.AttributeNames.MAIL_POINTS;
import static dev.berth.core.AttributeNames.MAIL_USERS;
import static dev.berth.core.AttributeNames.MTIME;
import static dev.berth.core.AttributeNames.NODE_EXCLUSIVE;
import static dev.berth.core.AttributeNames.OUTPUT_PATH;
import static dev.berth.core.AttributeNames.PLANNED_WALLTIME;
import static dev.berth.core.AttributeNames.PRIORITY;
import static dev.berth.core.AttributeNames.QTIME;
import static dev.berth.core.AttributeNames.QUEUE;
import static dev.berth.core.AttributeNames.RERUNABLE;
import static dev.berth.core.AttributeNames.RESOURCES_USED;
import static dev.berth.core.AttributeNames.RESOURCE_LIST;
import static dev.berth.core.AttributeNames.SCHED_PRIORITY;
import static dev.berth.core.AttributeNames.SCHED_PRIORITY_FACTORS;
import static dev.berth.core.AttributeNames.SERVER;
import static dev.berth.core.AttributeNames.SESSION_ID;
import static dev.berth.core.AttributeNames.SHELL_PATH_LIST;
import static dev.berth.core.AttributeNames.START_COUNT;
import static dev.berth.core.AttributeNames.START_TIME;
import static dev.berth.core.AttributeNames.SUBMIT_ARGS;
import static dev.berth.core.AttributeNames.SUBMIT_HOST;
import static dev.berth.core.AttributeNames.UMASK;
import static dev.berth.core.AttributeNames.VARIABLE_LIST;
import static dev.berth.core.AttributeNames.WALLTIME;
import static dev.berth.core.AttributeNames.WORK_DIR;

import dev.berth.core.AttributeNames;
import dev.berth.core.CpuRanges;
import dev.berth.core.Durations;
import dev.berth.core.Suspensions;
import dev.berth.core.UsedResources;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Container;
import dev.berth.proto.Dependency;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.SchedulingPriority;
import dev.berth.proto.Variable;
import dev.berth.tools.format.Attr;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A job as the ordered attribute list of Torque 6's {@code qstat -f}: the order of Torque's job
 * attribute table ({@code JOB_ATR_*}), holding only what the job carries, then Berth's own
 * attributes ({@code work_dir}, {@code cgroup_enable}, {@code exit_reason}, other {@code -W}
 * extensions). The same list feeds {@code -f}, {@code -x} and {@code -F json}. The names are core's
 * ({@link dev.berth.core.AttributeNames}: those of {@link AttributeTable#JOB} and {@link
 * AttributeTable#JOB_STATUS}), but for the places Torque keeps for stagein, stageout and User_List,
 * which Berth does not take.
 */
public final class JobAttributeList {
  /** Extensions that have their own place in Torque's order. */
  private static final Set<String> PLACED_EXTENSIONS =
      Set.of(GROUP_LIST, "stagein", "stageout", "User_List", UMASK, JOB_RADIX);

  private JobAttributeList() {}

  /** The attributes of {@code job}; {@code now} (epoch seconds) gives Walltime.Remaining. */
  public static List<Attr> of(Job job, long now) {
    List<Attr> attrs = new ArrayList<>();
    attrs.add(Attr.text(JOB_NAME, job.getName()));
    attrs.add(Attr.text(JOB_OWNER, job.getOwner()));
    if (job.hasResourcesUsed()) {
      resourcesUsed(attrs, job.getResourcesUsed());
    }
    attrs.add(Attr.text(JOB_STATE, stateLetter(job)));
    attrs.add(Attr.text(QUEUE, job.getQueue()));
    attrs.add(Attr.text(SERVER, job.getServer()));
    text(attrs, ACCOUNT_NAME, job.getAccount());
    text(attrs, CHECKPOINT, job.getCheckpoint());
    time(attrs, CTIME, job.getCtime());
    text(attrs, DEPEND, depend(job.getDependenciesList()));
    text(attrs, ERROR_PATH, job.getErrorPath());
    text(attrs, EXEC_GPUS, CpuRanges.execGpus(job.getExecNodesList()));
    text(attrs, EXEC_HOST, CpuRanges.execHost(job.getExecNodesList()));
    time(attrs, EXECUTION_TIME, job.getExecutionTime());
    extension(attrs, job, GROUP_LIST);
    attrs.add(Attr.text(HOLD_TYPES, holdTypes(job.getHolds())));
    if (job.hasInteractive()) {
      attrs.add(Attr.text(INTERACTIVE, "True"));
      text(attrs, INTER_CMD, job.getInteractive().getCommand());
    }
    text(attrs, JOIN_PATH, job.getJoinPath());
    text(attrs, KEEP_FILES, job.getKeepFiles());
    text(attrs, MAIL_POINTS, job.getMailPoints());
    text(attrs, MAIL_USERS, job.getMailUsers());
    time(attrs, MTIME, job.getMtime());
    text(attrs, OUTPUT_PATH, job.getOutputPath());
    attrs.add(Attr.number(PRIORITY, job.getPriority()));
    time(attrs, QTIME, job.getQtime());
    attrs.add(Attr.text(RERUNABLE, bool(job.getRerunnable())));
    new TreeMap<>(job.getResources().getValuesMap())
        .forEach((name, value) -> attrs.add(Attr.text(RESOURCE_LIST, name, value)));
    if (job.getSessionId() > 0) {
      attrs.add(Attr.number(SESSION_ID, job.getSessionId()));
    }
    text(attrs, SHELL_PATH_LIST, job.getShell());
    extension(attrs, job, "stagein");
    extension(attrs, job, "stageout");
    extension(attrs, job, "User_List");
    if (job.getVariablesCount() > 0) {
      attrs.add(variables(job.getVariablesList()));
    }
    text(attrs, EUSER, job.getEuser());
    text(attrs, EGROUP, job.getEgroup());
    text(attrs, COMMENT, job.getComment());
    time(attrs, ETIME, job.getEtime());
    if (job.hasExitStatus()) {
      attrs.add(Attr.number(EXIT_STATUS, job.getExitStatus()));
    }
    text(attrs, SUBMIT_ARGS, job.getSubmitArgs());
    if (!job.getArrayParent().isEmpty()) {
      attrs.add(Attr.number(JOB_ARRAY_ID, job.getArrayIndex()));
    }
    text(attrs, JOB_ARRAY_REQUEST, job.getArrayRequest());
    extension(attrs, job, UMASK);
    time(attrs, START_TIME, job.getStartTime());
    walltimeRemaining(attrs, job, now);
    if (job.getRunCount() > 0) {
      attrs.add(Attr.number(START_COUNT, job.getRunCount()));
    }
    time(attrs, COMP_TIME, job.getCompTime());
    extension(attrs, job, JOB_RADIX);
    if (job.getNodeExclusive()) {
      attrs.add(Attr.text(NODE_EXCLUSIVE, "True"));
    }
    text(attrs, SUBMIT_HOST, job.getSubmitHost());
    text(attrs, INIT_WORK_DIR, job.getInitWorkDir());
    berthAttributes(attrs, job);
    return attrs;
  }

  /** Torque's state letter: Q H W R E C, and OpenPBS's S for a suspended running job. */
  public static String stateLetter(Job job) {
    if (Suspensions.suspended(job)) {
      return "S";
    }
    switch (job.getState()) {
      case QUEUED:
        return "Q";
      case HELD:
        return "H";
      case WAITING:
        return "W";
      case RUNNING:
        return "R";
      case EXITING:
        return "E";
      case COMPLETED:
        return "C";
      default:
        return "?";
    }
  }

  /** Hold_Types: the letters of the holds in Torque's order (u, o, s), or {@code n}. */
  public static String holdTypes(Holds holds) {
    String types =
        (holds.getUser() ? "u" : "")
            + (holds.getOther() ? "o" : "")
            + (holds.getSystem() ? "s" : "");
    return types.isEmpty() ? "n" : types;
  }

  /**
   * Variable_List's text: {@code NAME=value} joined by commas, commas inside values as {@code \,}.
   */
  public static String variableText(List<Variable> variables) {
    StringBuilder out = new StringBuilder();
    for (Variable variable : variables) {
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(variable.getName()).append('=').append(variable.getValue().replace(",", "\\,"));
    }
    return out.toString();
  }

  private static void resourcesUsed(List<Attr> attrs, ResourcesUsed used) {
    for (UsedResources.Item r : UsedResources.of(used)) {
      attrs.add(
          r.number()
              ? Attr.number(RESOURCES_USED, r.name(), Long.parseLong(r.value()))
              : Attr.text(RESOURCES_USED, r.name(), r.value()));
    }
  }

  private static Attr variables(List<Variable> variables) {
    List<Map.Entry<String, String>> entries = new ArrayList<>(variables.size());
    for (Variable variable : variables) {
      entries.add(new AbstractMap.SimpleImmutableEntry<>(variable.getName(), variable.getValue()));
    }
    return Attr.entries(VARIABLE_LIST, variableText(variables), entries);
  }

  /** Torque's depend text: {@code afterok:12.srv@srv:13.srv@srv,afterany:...}. */
  private static String depend(List<Dependency> dependencies) {
    StringBuilder out = new StringBuilder();
    for (Dependency dependency : dependencies) {
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(dependency.getType());
      for (String id : dependency.getJobIdsList()) {
        int dot = id.indexOf('.');
        out.append(':').append(id);
        if (dot >= 0) {
          out.append('@').append(id.substring(dot + 1));
        }
      }
    }
    return out.toString();
  }

  private static void walltimeRemaining(List<Attr> attrs, Job job, long now) {
    long walltime = job.getResources().getWalltime();
    if (job.getState() == JobState.RUNNING && walltime > 0 && job.getStartTime() > 0) {
      attrs.add(Attr.number(WALLTIME, "Remaining", walltime - Suspensions.ranSeconds(job, now)));
    }
  }

  private static void berthAttributes(List<Attr> attrs, Job job) {
    text(attrs, WORK_DIR, job.getWorkDir());
    text(attrs, AttributeNames.SUBMIT_STYLE, job.getSubmitStyle());
    attrs.add(Attr.text(CGROUP_ENABLE, bool(job.getCgroupEnable())));
    text(attrs, EXIT_REASON, job.getExitReason());
    if (job.hasSchedPriority()) {
      SchedulingPriority p = job.getSchedPriority();
      attrs.add(Attr.number(SCHED_PRIORITY, p.getTotal()));
      attrs.add(Attr.number(SCHED_PRIORITY_FACTORS, "age", p.getAge()));
      attrs.add(Attr.number(SCHED_PRIORITY_FACTORS, "job_size", p.getJobSize()));
      attrs.add(Attr.number(SCHED_PRIORITY_FACTORS, "queue", p.getQueue()));
      attrs.add(Attr.number(SCHED_PRIORITY_FACTORS, "user", p.getUser()));
      attrs.add(Attr.number(SCHED_PRIORITY_FACTORS, "fair_share", p.getFairShare()));
    }
    if (job.getEstimatedStartTime() > 0) {
      attrs.add(Attr.time(ESTIMATED, "start_time", job.getEstimatedStartTime()));
    }
    if (job.getPlannedWalltime() > 0) {
      attrs.add(
          Attr.text(
              PLANNED_WALLTIME,
              Durations.format(job.getPlannedWalltime())
                  + " ("
                  + job.getPlannedWalltimeSource()
                  + ")"));
    }
    if (job.hasContainer()) {
      container(attrs, job.getContainer());
    }
    new TreeMap<>(job.getExtensionsMap())
        .forEach(
            (name, value) -> {
              if (!PLACED_EXTENSIONS.contains(name)) {
                attrs.add(Attr.text(name, value));
              }
            });
  }

  /** The -W container_* attributes as they were given (mounts normalised). */
  private static void container(List<Attr> attrs, Container c) {
    text(attrs, CONTAINER_IMAGE, c.getImage());
    text(attrs, CONTAINER_NAME, c.getName());
    text(
        attrs,
        CONTAINER_MOUNTS,
        c.getMountsList().stream()
            .map(m -> m.getSource() + ":" + m.getTarget() + (m.getReadOnly() ? ":ro" : ""))
            .collect(java.util.stream.Collectors.joining(",")));
    text(attrs, CONTAINER_WORKDIR, c.getWorkdir());
    text(attrs, CONTAINER_ENV, String.join(",", c.getEnvList()));
    attrs.add(Attr.text(CONTAINER_WRITABLE, bool(c.getWritable())));
    attrs.add(Attr.text(CONTAINER_REMAP_ROOT, bool(c.getRemapRoot())));
  }

  private static void extension(List<Attr> attrs, Job job, String name) {
    text(attrs, name, job.getExtensionsOrDefault(name, ""));
  }

  private static void text(List<Attr> attrs, String name, String value) {
    if (!value.isEmpty()) {
      attrs.add(Attr.text(name, value));
    }
  }

  private static void time(List<Attr> attrs, String name, long epochSeconds) {
    if (epochSeconds > 0) {
      attrs.add(Attr.time(name, epochSeconds));
    }
  }

  private static String bool(boolean value) {
    return value ? "True" : "False";
  }
}
