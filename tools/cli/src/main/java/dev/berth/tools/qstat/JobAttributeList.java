package dev.berth.tools.qstat;

import dev.berth.core.CpuRanges;
import dev.berth.core.Durations;
import dev.berth.core.Suspensions;
import dev.berth.core.UsedResources;
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
 * extensions). The same list feeds {@code -f}, {@code -x} and {@code -F json}.
 */
public final class JobAttributeList {
  /** Extensions that have their own place in Torque's order. */
  private static final Set<String> PLACED_EXTENSIONS =
      Set.of("group_list", "stagein", "stageout", "User_List", "umask", "job_radix");

  private JobAttributeList() {}

  /** The attributes of {@code job}; {@code now} (epoch seconds) gives Walltime.Remaining. */
  public static List<Attr> of(Job job, long now) {
    List<Attr> attrs = new ArrayList<>();
    attrs.add(Attr.text("Job_Name", job.getName()));
    attrs.add(Attr.text("Job_Owner", job.getOwner()));
    if (job.hasResourcesUsed()) {
      resourcesUsed(attrs, job.getResourcesUsed());
    }
    attrs.add(Attr.text("job_state", stateLetter(job)));
    attrs.add(Attr.text("queue", job.getQueue()));
    attrs.add(Attr.text("server", job.getServer()));
    text(attrs, "Account_Name", job.getAccount());
    text(attrs, "Checkpoint", job.getCheckpoint());
    time(attrs, "ctime", job.getCtime());
    text(attrs, "depend", depend(job.getDependenciesList()));
    text(attrs, "Error_Path", job.getErrorPath());
    text(attrs, "exec_gpus", CpuRanges.execGpus(job.getExecNodesList()));
    text(attrs, "exec_host", CpuRanges.execHost(job.getExecNodesList()));
    time(attrs, "Execution_Time", job.getExecutionTime());
    extension(attrs, job, "group_list");
    attrs.add(Attr.text("Hold_Types", holdTypes(job.getHolds())));
    if (job.hasInteractive()) {
      attrs.add(Attr.text("interactive", "True"));
      text(attrs, "inter_cmd", job.getInteractive().getCommand());
    }
    text(attrs, "Join_Path", job.getJoinPath());
    text(attrs, "Keep_Files", job.getKeepFiles());
    text(attrs, "Mail_Points", job.getMailPoints());
    text(attrs, "Mail_Users", job.getMailUsers());
    time(attrs, "mtime", job.getMtime());
    text(attrs, "Output_Path", job.getOutputPath());
    attrs.add(Attr.number("Priority", job.getPriority()));
    time(attrs, "qtime", job.getQtime());
    attrs.add(Attr.text("Rerunable", bool(job.getRerunnable())));
    new TreeMap<>(job.getResources().getValuesMap())
        .forEach((name, value) -> attrs.add(Attr.text("Resource_List", name, value)));
    if (job.getSessionId() > 0) {
      attrs.add(Attr.number("session_id", job.getSessionId()));
    }
    text(attrs, "Shell_Path_List", job.getShell());
    extension(attrs, job, "stagein");
    extension(attrs, job, "stageout");
    extension(attrs, job, "User_List");
    if (job.getVariablesCount() > 0) {
      attrs.add(variables(job.getVariablesList()));
    }
    text(attrs, "euser", job.getEuser());
    text(attrs, "egroup", job.getEgroup());
    text(attrs, "comment", job.getComment());
    time(attrs, "etime", job.getEtime());
    if (job.hasExitStatus()) {
      attrs.add(Attr.number("exit_status", job.getExitStatus()));
    }
    text(attrs, "submit_args", job.getSubmitArgs());
    if (!job.getArrayParent().isEmpty()) {
      attrs.add(Attr.number("job_array_id", job.getArrayIndex()));
    }
    text(attrs, "job_array_request", job.getArrayRequest());
    extension(attrs, job, "umask");
    time(attrs, "start_time", job.getStartTime());
    walltimeRemaining(attrs, job, now);
    if (job.getRunCount() > 0) {
      attrs.add(Attr.number("start_count", job.getRunCount()));
    }
    time(attrs, "comp_time", job.getCompTime());
    extension(attrs, job, "job_radix");
    if (job.getNodeExclusive()) {
      attrs.add(Attr.text("node_exclusive", "True"));
    }
    text(attrs, "submit_host", job.getSubmitHost());
    text(attrs, "init_work_dir", job.getInitWorkDir());
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
              ? Attr.number("resources_used", r.name(), Long.parseLong(r.value()))
              : Attr.text("resources_used", r.name(), r.value()));
    }
  }

  private static Attr variables(List<Variable> variables) {
    List<Map.Entry<String, String>> entries = new ArrayList<>(variables.size());
    for (Variable variable : variables) {
      entries.add(new AbstractMap.SimpleImmutableEntry<>(variable.getName(), variable.getValue()));
    }
    return Attr.entries("Variable_List", variableText(variables), entries);
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
      attrs.add(Attr.number("Walltime", "Remaining", walltime - Suspensions.ranSeconds(job, now)));
    }
  }

  private static void berthAttributes(List<Attr> attrs, Job job) {
    text(attrs, "work_dir", job.getWorkDir());
    attrs.add(Attr.text("cgroup_enable", bool(job.getCgroupEnable())));
    text(attrs, "exit_reason", job.getExitReason());
    if (job.hasSchedPriority()) {
      SchedulingPriority p = job.getSchedPriority();
      attrs.add(Attr.number("sched_priority", p.getTotal()));
      attrs.add(Attr.number("sched_priority_factors", "age", p.getAge()));
      attrs.add(Attr.number("sched_priority_factors", "job_size", p.getJobSize()));
      attrs.add(Attr.number("sched_priority_factors", "queue", p.getQueue()));
      attrs.add(Attr.number("sched_priority_factors", "user", p.getUser()));
      attrs.add(Attr.number("sched_priority_factors", "fair_share", p.getFairShare()));
    }
    if (job.getEstimatedStartTime() > 0) {
      attrs.add(Attr.time("estimated", "start_time", job.getEstimatedStartTime()));
    }
    if (job.getPlannedWalltime() > 0) {
      attrs.add(
          Attr.text(
              "planned_walltime",
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
    text(attrs, "container_image", c.getImage());
    text(attrs, "container_name", c.getName());
    text(
        attrs,
        "container_mounts",
        c.getMountsList().stream()
            .map(m -> m.getSource() + ":" + m.getTarget() + (m.getReadOnly() ? ":ro" : ""))
            .collect(java.util.stream.Collectors.joining(",")));
    text(attrs, "container_workdir", c.getWorkdir());
    attrs.add(Attr.text("container_writable", bool(c.getWritable())));
    attrs.add(Attr.text("container_remap_root", bool(c.getRemapRoot())));
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
