package dev.berth.tools.squeue;

import dev.berth.core.slurm.SlurmJobs;
import dev.berth.tools.slurm.SlurmFormat;
import dev.berth.tools.slurm.SlurmFormat.Field;
import dev.berth.tools.slurm.SlurmJob;
import dev.berth.tools.slurm.SlurmTimes;
import java.time.ZoneId;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * squeue's layouts (default, {@code -l}, {@code --start}) and the {@code -o} fields Berth's squeue
 * shows, by their letters and by {@code -O}'s names ({@link SlurmFormat} reads the formats).
 */
final class SqueueFormat {
  static final String DEFAULT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
  static final String LONG = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
  static final String START = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %R";

  /** {@code -O}'s names of the fields Berth's squeue shows, as their {@code -o} letters. */
  static final Map<String, Character> NAMES =
      Map.ofEntries(
          Map.entry("account", 'a'),
          Map.entry("arrayjobid", 'F'),
          Map.entry("arraytaskid", 'K'),
          Map.entry("batchhost", 'B'),
          Map.entry("endtime", 'e'),
          Map.entry("groupname", 'g'),
          Map.entry("jobarrayid", 'i'),
          Map.entry("jobid", 'A'),
          Map.entry("name", 'j'),
          Map.entry("nodelist", 'N'),
          Map.entry("numcpus", 'C'),
          Map.entry("numnodes", 'D'),
          Map.entry("partition", 'P'),
          Map.entry("prioritylong", 'Q'),
          Map.entry("reason", 'r'),
          Map.entry("reasonlist", 'R'),
          Map.entry("starttime", 'S'),
          Map.entry("state", 'T'),
          Map.entry("statecompact", 't'),
          Map.entry("submittime", 'V'),
          Map.entry("timeleft", 'L'),
          Map.entry("timelimit", 'l'),
          Map.entry("timeused", 'M'),
          Map.entry("username", 'u'),
          Map.entry("workdir", 'Z'));

  /** Slurm 22.05's other {@code -O} names of a job's fields, which Berth's squeue refuses. */
  static final Set<String> NOT_SHOWN =
      Set.of(
          "accruetime",
          "admin_comment",
          "allocnodes",
          "allocsid",
          "batchflag",
          "boardspernode",
          "burstbuffer",
          "burstbufferstate",
          "cluster",
          "clusterfeature",
          "command",
          "comment",
          "container",
          "contiguous",
          "corespec",
          "cores",
          "cpuspertask",
          "deadline",
          "delayboot",
          "dependency",
          "derivedec",
          "eligibletime",
          "exit_code",
          "feature",
          "gres",
          "groupid",
          "lastschedeval",
          "licenses",
          "maxcpus",
          "maxnodes",
          "mcslabel",
          "mincpus",
          "minmemory",
          "mintime",
          "mintmpdisk",
          "network",
          "nice",
          "ntperboard",
          "ntpercore",
          "ntpernode",
          "ntpersocket",
          "numtasks",
          "origin",
          "originraw",
          "oversubscribe",
          "packjobid",
          "packjobidset",
          "packjoboffset",
          "pendingtime",
          "preempttime",
          "prefer",
          "priority",
          "profile",
          "qos",
          "reboot",
          "reqnodes",
          "reqswitch",
          "requeue",
          "reservation",
          "resizetime",
          "restartcnt",
          "schednodes",
          "sct",
          "selectjobinfo",
          "shared",
          "siblingsactive",
          "siblingsactiveraw",
          "siblingsviable",
          "siblingsviableraw",
          "sockets",
          "sperboard",
          "stderr",
          "stdin",
          "stdout",
          "system_comment",
          "threads",
          "tres",
          "userid",
          "wckey");

  private SqueueFormat() {}

  /** The fields Berth's squeue shows, by their letter. */
  static Map<Character, Field<SlurmJob>> fields(ZoneId zone) {
    Function<Long, String> time = t -> SlurmTimes.date(t, zone, "N/A");
    return Map.ofEntries(
        Map.entry('i', new Field<>("JOBID", SlurmJob::id)),
        // a task of an sbatch array has a number of its own, as Slurm's tasks have
        Map.entry('A', new Field<>("JOBID", j -> Long.toString(SlurmJobs.number(j.job())))),
        Map.entry('F', new Field<>("ARRAY_JOB_ID", j -> Long.toString(j.job().getNumber()))),
        Map.entry(
            'K',
            new Field<>(
                "ARRAY_TASK_ID",
                j -> j.arrayTask() ? Integer.toString(j.job().getArrayIndex()) : "N/A")),
        Map.entry('j', new Field<>("NAME", j -> j.job().getName())),
        Map.entry('u', new Field<>("USER", j -> j.job().getEuser())),
        Map.entry('g', new Field<>("GROUP", j -> j.job().getEgroup())),
        Map.entry('a', new Field<>("ACCOUNT", j -> orNull(j.job().getAccount()))),
        Map.entry('P', new Field<>("PARTITION", j -> j.job().getQueue())),
        Map.entry('t', new Field<>("ST", j -> j.state().compact)),
        Map.entry('T', new Field<>("STATE", j -> j.state().name())),
        Map.entry('M', new Field<>("TIME", j -> SlurmTimes.secs(j.timeUsed()))),
        Map.entry(
            'l',
            new Field<>(
                "TIME_LIMIT",
                j -> j.timeLimit() == 0 ? "UNLIMITED" : SlurmTimes.secs(j.timeLimit()))),
        Map.entry(
            'L',
            new Field<>(
                "TIME_LEFT",
                j ->
                    j.timeLimit() == 0
                        ? "UNLIMITED"
                        : SlurmTimes.secs(Math.max(0, j.timeLimit() - j.timeUsed())))),
        Map.entry('D', new Field<>("NODES", j -> Integer.toString(j.nodes()))),
        Map.entry('C', new Field<>("CPUS", j -> Integer.toString(j.cpus()))),
        Map.entry('N', new Field<>("NODELIST", SlurmJob::nodeList)),
        Map.entry(
            'B',
            new Field<>(
                "EXEC_HOST",
                j -> j.job().getExecNodesCount() == 0 ? "n/a" : j.job().getExecNodes(0).getNode())),
        Map.entry('r', new Field<>("REASON", SlurmJob::reason)),
        Map.entry(
            'R',
            new Field<>(
                "NODELIST(REASON)",
                j ->
                    j.state() == SlurmJob.State.PENDING || j.state() == SlurmJob.State.FAILED
                        ? "(" + j.reason() + ")"
                        : j.nodeList())),
        Map.entry(
            'S',
            new Field<>(
                "START_TIME",
                j ->
                    time.apply(
                        j.job().getStartTime() > 0
                            ? j.job().getStartTime()
                            : j.job().getEstimatedStartTime()))),
        Map.entry('V', new Field<>("SUBMIT_TIME", j -> time.apply(j.job().getCtime()))),
        Map.entry('e', new Field<>("END_TIME", j -> end(j, time))),
        Map.entry('Z', new Field<>("WORK_DIR", SlurmJob::workDir)),
        Map.entry(
            'Q',
            new Field<>("PRIORITY", j -> Long.toString(j.job().getSchedPriority().getTotal()))));
  }

  private static String orNull(String s) {
    return s.isEmpty() ? "(null)" : s;
  }

  private static String end(SlurmJob j, Function<Long, String> time) {
    if (j.job().getCompTime() > 0) {
      return time.apply(j.job().getCompTime());
    }
    if (j.job().getStartTime() > 0 && j.timeLimit() > 0) {
      return time.apply(j.job().getStartTime() + j.job().getSuspendedSeconds() + j.timeLimit());
    }
    return j.job().getStartTime() > 0 ? "NONE" : "N/A";
  }
}
