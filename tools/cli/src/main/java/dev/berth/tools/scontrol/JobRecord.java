package dev.berth.tools.scontrol;

import dev.berth.core.CpuRanges;
import dev.berth.core.slurm.HostList;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.core.slurm.SlurmPatterns;
import dev.berth.proto.Dependency;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Variable;
import dev.berth.tools.slurm.SlurmJob;
import dev.berth.tools.slurm.SlurmMemory;
import dev.berth.tools.slurm.SlurmTimes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code scontrol show job}: a job as Slurm 22.05's slurm_sprint_job_info prints one, its lines in
 * Slurm's order, from what Berth knows of it. What Berth does not have is printed as Slurm prints
 * an unset value ({@code (null)}, {@code N/A}, {@code *}, {@code Unknown}); user and group are
 * names only (the server keeps no numeric ids).
 */
final class JobRecord {
  private JobRecord() {}

  /**
   * The record, ended as Slurm ends one: a line of three spaces and an empty line, or with {@code
   * oneLiner} a space and the line's end.
   *
   * @param details {@code -d}: each node's CPU ids and memory
   */
  static String of(SlurmJob j, ZoneId zone, boolean details, boolean oneLiner) {
    Job job = j.job();
    KeyValueRecord r = new KeyValueRecord();
    List<String> first = new ArrayList<>(List.of("JobId", Long.toString(SlurmJobs.number(job))));
    if (j.arrayTask()) {
      first.addAll(
          List.of(
              "ArrayJobId",
              Long.toString(job.getNumber()),
              "ArrayTaskId",
              Integer.toString(job.getArrayIndex())));
    }
    first.addAll(List.of("JobName", job.getName()));
    r.group(first.toArray(String[]::new));
    r.group("UserId", job.getEuser(), "GroupId", job.getEgroup(), "MCS_label", "N/A");
    r.group(
        "Priority",
        Long.toString(j.state() == SlurmJob.State.PENDING && held(job) ? 0 : priority(job)),
        "Nice",
        "0",
        "Account",
        orNull(job.getAccount()),
        "QOS",
        "(null)");
    r.group("JobState", j.state().name(), "Reason", j.reason(), "Dependency", dependency(job));
    r.group(
        "Requeue",
        job.getRerunnable() ? "1" : "0",
        "Restarts",
        Integer.toString(Math.max(0, job.getRunCount() - 1)),
        "BatchFlag",
        job.hasInteractive() ? "0" : "1",
        "Reboot",
        "0",
        "ExitCode",
        j.exitCode());
    long limit = j.timeLimit();
    r.group(
        "RunTime",
        SlurmTimes.clock(j.timeUsed()),
        "TimeLimit",
        limit == 0 ? "UNLIMITED" : SlurmTimes.clock(limit),
        "TimeMin",
        "N/A");
    boolean eligible = job.getEtime() > 0 && !held(job);
    r.group(
        "SubmitTime",
        SlurmTimes.date(job.getQtime(), zone, "Unknown"),
        "EligibleTime",
        eligible ? SlurmTimes.date(job.getEtime(), zone, "Unknown") : "Unknown");
    r.group("AccrueTime", eligible ? SlurmTimes.date(job.getEtime(), zone, "Unknown") : "Unknown");
    long start =
        job.getStartTime() > 0
            ? job.getStartTime()
            : j.state() == SlurmJob.State.PENDING ? job.getEstimatedStartTime() : 0;
    long end =
        job.getCompTime() > 0
            ? job.getCompTime()
            : start > 0 && limit > 0 ? start + limit + job.getSuspendedSeconds() : 0;
    r.group(
        "StartTime",
        SlurmTimes.date(start, zone, "Unknown"),
        "EndTime",
        SlurmTimes.date(end, zone, "Unknown"),
        "Deadline",
        "N/A");
    boolean suspended = j.state() == SlurmJob.State.SUSPENDED;
    r.group(
        "SuspendTime",
        SlurmTimes.date(job.getSuspendedAt(), zone, "None"),
        "SecsPreSuspend",
        Long.toString(suspended ? j.timeUsed() : 0),
        "LastSchedEval",
        "Unknown",
        "Scheduler",
        "Main");
    r.group("Partition", job.getQueue(), "AllocNode:Sid", job.getSubmitHost() + ":0");
    r.group("ReqNodeList", requestedHosts(job), "ExcNodeList", "(null)");
    r.group("NodeList", j.state() == SlurmJob.State.PENDING ? "" : j.nodeList());
    if (job.getExecNodesCount() > 0 && j.state() != SlurmJob.State.PENDING) {
      r.group("BatchHost", job.getExecNodes(0).getNode());
    }
    String tasks = variable(job, "SLURM_NTASKS");
    String perTask = variable(job, "SLURM_CPUS_PER_TASK");
    r.group(
        "NumNodes",
        Integer.toString(j.nodes()),
        "NumCPUs",
        Integer.toString(j.cpus()),
        "NumTasks",
        tasks.isEmpty() ? Integer.toString(j.cpus()) : tasks,
        "CPUs/Task",
        perTask.isEmpty() ? "1" : perTask,
        "ReqB:S:C:T",
        "0:0:*:*");
    r.group("TRES", tres(j));
    String perNode = variable(job, "SLURM_NTASKS_PER_NODE");
    r.group(
        "Socks/Node",
        "*",
        "NtasksPerN:B:S:C",
        (perNode.isEmpty() ? "0" : perNode) + ":0:*:*",
        "CoreSpec",
        "*");
    if (details && job.getExecNodesCount() > 0 && j.state() != SlurmJob.State.PENDING) {
      r.group("JOB_GRES", "(null)");
      for (NodeAllocation a : job.getExecNodesList()) {
        r.group(
            "  Nodes",
            a.getNode(),
            "CPU_IDs",
            CpuRanges.format(a.getCpusList()),
            "Mem",
            Long.toString(a.getMem() >> 20),
            "GRES",
            a.getGpus() > 0 ? "gpu:" + a.getGpus() : "");
      }
    }
    r.group(
        "MinCPUsNode",
        Integer.toString(minCpusNode(job.getResources())),
        memoryKey(job),
        memoryValue(job),
        "MinTmpDiskNode",
        "0");
    r.group("Features", features(job.getResources()), "DelayBoot", "00:00:00");
    r.group(
        "OverSubscribe",
        job.getNodeExclusive() ? "NO" : "OK",
        "Contiguous",
        "0",
        "Licenses",
        "(null)",
        "Network",
        "(null)");
    r.group("Command", command(job));
    r.group("WorkDir", j.workDir());
    if (!job.getComment().isEmpty()) {
      r.group("Comment", job.getComment()).then(" ");
    }
    if (!job.hasInteractive()) {
      r.group(
          "StdErr",
          path(job.getJoinPath().equals("oe") ? job.getOutputPath() : job.getErrorPath(), job));
      r.group("StdIn", "/dev/null");
      r.group(
          "StdOut",
          path(job.getJoinPath().equals("eo") ? job.getErrorPath() : job.getOutputPath(), job));
    }
    r.group("Power", "");
    if (!job.getMailUsers().isEmpty()) {
      r.group("MailUser", job.getMailUsers(), "MailType", mailType(job.getMailPoints()));
    }
    return oneLiner ? r.render(true) + " \n" : r.render(false) + "\n   \n\n";
  }

  private static boolean held(Job job) {
    return job.getState() == JobState.HELD;
  }

  private static long priority(Job job) {
    return Math.max(0, job.getSchedPriority().getTotal());
  }

  private static String orNull(String value) {
    return value.isEmpty() ? "(null)" : value;
  }

  /** Slurm's dependency text: {@code afterok:12_3,afterany:13}, or (null) for none. */
  private static String dependency(Job job) {
    if (job.getDependenciesCount() == 0) {
      return "(null)";
    }
    List<String> items = new ArrayList<>();
    for (Dependency d : job.getDependenciesList()) {
      for (String id : d.getJobIdsList()) {
        items.add(d.getType() + ":" + slurmId(id));
      }
    }
    return String.join(",", items);
  }

  /** {@code 12.server} as 12, {@code 12[3].server} as 12_3. */
  private static String slurmId(String berthId) {
    String number = berthId.contains(".") ? berthId.substring(0, berthId.indexOf('.')) : berthId;
    return number.replace("[]", "").replace("[", "_").replace("]", "");
  }

  /** The hosts a job asked for by name ({@code -l nodes=n1+n2}), or (null). */
  private static String requestedHosts(Job job) {
    List<String> hosts =
        job.getResources().getNodeGroupsList().stream()
            .map(NodeGroup::getHost)
            .filter(h -> !h.isEmpty())
            .toList();
    return hosts.isEmpty() ? "(null)" : HostList.compress(hosts);
  }

  private static String variable(Job job, String name) {
    for (Variable v : job.getVariablesList()) {
      if (v.getName().equals(name)) {
        return v.getValue();
      }
    }
    return "";
  }

  /** {@code cpu=4,mem=2G,node=2,billing=4}, and the GPUs it holds or asks for. */
  private static String tres(SlurmJob j) {
    ResourceRequest r = j.job().getResources();
    StringBuilder t = new StringBuilder("cpu=").append(j.cpus());
    long mem = r.getMem() > 0 ? r.getMem() : r.getPmem() * j.cpus();
    if (mem > 0) {
      t.append(",mem=").append(SlurmMemory.of(mem >> 20));
    }
    t.append(",node=").append(j.nodes()).append(",billing=").append(j.cpus());
    int gpus = gpus(j.job());
    if (gpus > 0) {
      t.append(",gres/gpu=").append(gpus);
    }
    return t.toString();
  }

  private static int gpus(Job job) {
    if (job.getExecNodesCount() > 0) {
      return job.getExecNodesList().stream().mapToInt(NodeAllocation::getGpus).sum();
    }
    ResourceRequest r = job.getResources();
    return r.getNodeGroupsList().stream()
        .mapToInt(g -> g.getCount() * (g.getGpus() > 0 ? g.getGpus() : r.getGpus()))
        .sum();
  }

  private static int minCpusNode(ResourceRequest r) {
    return r.getNodeGroupsList().stream().mapToInt(NodeGroup::getPpn).min().orElse(1);
  }

  /** sbatch's --mem-per-cpu, or a per-CPU memory (pmem), as MinMemoryCPU; else MinMemoryNode. */
  private static String memoryKey(Job job) {
    return job.getResources().getPmem() > 0 || !variable(job, "SLURM_MEM_PER_CPU").isEmpty()
        ? "MinMemoryCPU"
        : "MinMemoryNode";
  }

  private static String memoryValue(Job job) {
    ResourceRequest r = job.getResources();
    if (r.getPmem() > 0) {
      return SlurmMemory.of(r.getPmem() >> 20);
    }
    if (r.getMem() > 0) {
      int nodes = Math.max(1, r.getNodeGroupsList().stream().mapToInt(NodeGroup::getCount).sum());
      return SlurmMemory.of((r.getMem() >> 20) / nodes);
    }
    return "0";
  }

  /** The node properties asked for, joined as Slurm joins features ({@code gpu&fast}). */
  private static String features(ResourceRequest r) {
    List<String> properties =
        r.getNodeGroupsList().stream()
            .flatMap(g -> g.getPropertiesList().stream())
            .distinct()
            .toList();
    return properties.isEmpty() ? "(null)" : String.join("&", properties);
  }

  /**
   * The batch script sbatch was given, as a path ({@code /home/alice/job.sh}); (null) for a {@code
   * --wrap} or standard-input job, an interactive one, and qsub's jobs (whose command lines Berth
   * does not take apart).
   */
  private static String command(Job job) {
    if (!SlurmJobs.sbatch(job) || job.getSubmitArgs().isBlank()) {
      return "(null)";
    }
    String[] words = job.getSubmitArgs().strip().split("\\s+");
    String script = words[words.length - 1];
    if (job.getSubmitArgs().contains("--wrap") || script.startsWith("-")) {
      return "(null)";
    }
    return script.startsWith("/") ? script : job.getWorkDir() + "/" + script;
  }

  /** An output path, its host left out and Slurm's patterns filled in (but %N, the node's). */
  private static String path(String hostPath, Job job) {
    int colon = hostPath.indexOf(':');
    String path = colon >= 0 ? hostPath.substring(colon + 1) : hostPath;
    return SlurmJobs.sbatch(job) ? SlurmPatterns.expand(path, job, null) : path;
  }

  /**
   * Torque's mail points in Slurm's words: b BEGIN, e END (but with f, Berth's end mail only on
   * failure, that is FAIL alone), a FAIL; n NONE.
   */
  private static String mailType(String points) {
    List<String> types = new ArrayList<>();
    if (points.contains("b")) {
      types.add("BEGIN");
    }
    if (points.contains("e") && !points.contains("f")) {
      types.add("END");
    }
    if (points.contains("a")) {
      types.add("FAIL");
    }
    return types.isEmpty() ? "NONE" : String.join(",", types);
  }
}
