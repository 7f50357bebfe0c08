package dev.berth.tools.slurm;

import dev.berth.core.slurm.HostList;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import java.util.List;
import java.util.Map;

/**
 * A Berth job as Slurm's commands show a job: its id ({@code 12}, an array task {@code 12_3}), its
 * state (PENDING, RUNNING, SUSPENDED, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT,
 * NODE_FAIL), why it waits, its times and where it runs.
 *
 * @param now the time of the listing, epoch seconds
 * @param tasks the indexes of an array's pending tasks this line stands for ({@code 1-3,5}), or
 *     null for the job alone
 */
public record SlurmJob(Job job, long now, String tasks) {
  public SlurmJob(Job job, long now) {
    this(job, now, null);
  }

  /** The same job standing for its array's pending tasks {@code tasks}. */
  public SlurmJob forTasks(String tasks) {
    return new SlurmJob(job, now, tasks);
  }

  /** Slurm's states, in the order of its state numbers (squeue sorts by them). */
  public enum State {
    PENDING("PD"),
    RUNNING("R"),
    SUSPENDED("S"),
    COMPLETED("CD"),
    CANCELLED("CA"),
    FAILED("F"),
    TIMEOUT("TO"),
    NODE_FAIL("NF"),
    COMPLETING("CG");

    public final String compact;

    State(String compact) {
      this.compact = compact;
    }

    /** A state as {@code -t} names it, long or compact, in any case; null if none. */
    public static State named(String name) {
      for (State s : values()) {
        if (s.name().equalsIgnoreCase(name) || s.compact.equalsIgnoreCase(name)) {
          return s;
        }
      }
      return null;
    }
  }

  public State state() {
    return switch (job.getState()) {
      case QUEUED, HELD, WAITING -> State.PENDING;
      case RUNNING -> job.getSuspendedAt() > 0 ? State.SUSPENDED : State.RUNNING;
      case EXITING -> State.COMPLETING;
      case COMPLETED -> ended();
      default -> State.PENDING;
    };
  }

  private State ended() {
    String reason = job.getExitReason();
    if (reason.contains("walltime")) {
      return State.TIMEOUT;
    }
    if (reason.contains("delet") || reason.startsWith("purged")) {
      return State.CANCELLED;
    }
    if (reason.contains("went down") || reason.startsWith("job lost")) {
      return State.NODE_FAIL;
    }
    return job.getExitStatus() == 0 ? State.COMPLETED : State.FAILED;
  }

  /** Whether {@code job} is an array's parent, which Slurm's commands list as its tasks. */
  public static boolean arrayParent(Job job) {
    return !job.getArrayRequest().isEmpty() && job.getArrayParent().isEmpty();
  }

  /**
   * Whether the Slurm id {@code id} names it: its number (an array task's too: its array's, and an
   * sbatch task's own), or its id.
   */
  public boolean answersTo(String id) {
    return id.equals(id())
        || id.equals(Long.toString(job.getNumber()))
        || (job.getTaskNumber() > 0 && id.equals(Long.toString(job.getTaskNumber())));
  }

  /**
   * The jobs a request about the Slurm id {@code id} goes to: an array's parent alone when the id
   * names the whole array (Berth's requests about it reach every task), else the job or task.
   */
  public static List<Job> targets(List<Job> jobs, String id) {
    List<Job> named = jobs.stream().filter(j -> new SlurmJob(j, 0).answersTo(id)).toList();
    List<Job> parents = named.stream().filter(SlurmJob::arrayParent).toList();
    return parents.isEmpty() ? named : parents;
  }

  public boolean arrayTask() {
    return !job.getArrayParent().isEmpty();
  }

  /** {@code %i}: the number, an array task's as {@code NUMBER_INDEX}. */
  public String id() {
    if (tasks != null) {
      return job.getNumber() + "_[" + tasks + "]";
    }
    return arrayTask()
        ? job.getNumber() + "_" + job.getArrayIndex()
        : Long.toString(job.getNumber());
  }

  /**
   * Why a pending job waits, in Slurm's words: held by its owner (JobHeldUser) or an operator
   * (JobHeldAdmin), waiting for its dependencies (Dependency) or its begin time (BeginTime), for
   * room (Resources), or behind other jobs (Priority); None where the scheduler has not looked at
   * it yet; for other states None.
   */
  public String reason() {
    if (state() != State.PENDING) {
      return state() == State.FAILED ? "NonZeroExitCode" : "None";
    }
    if (job.getState() == JobState.HELD) {
      if (job.getHolds().getUser()) {
        return "JobHeldUser";
      }
      if (job.getHolds().getSystem() && job.getDependenciesCount() > 0) {
        return "Dependency";
      }
      return "JobHeldAdmin";
    }
    if (job.getState() == JobState.WAITING) {
      return "BeginTime";
    }
    String comment = job.getComment();
    if (comment.isEmpty()) {
      return "None";
    }
    return comment.contains("not enough free") || comment.contains("start is reserved")
        ? "Resources"
        : "Priority";
  }

  /** The nodes it runs on, each with its CPUs, in exec_host order. */
  private Map<String, Integer> allocated() {
    return SlurmJobs.cpusByNode(job.getExecNodesList());
  }

  /** {@code %N}: the nodes it runs on, as Slurm's host list. */
  public String nodeList() {
    return HostList.compress(List.copyOf(allocated().keySet()));
  }

  /** {@code %D}: its nodes, or those it asks for while pending. */
  public int nodes() {
    if (!job.getExecNodesList().isEmpty()) {
      return allocated().size();
    }
    ResourceRequest r = job.getResources();
    return r.getNodeGroupsCount() == 0
        ? 1
        : r.getNodeGroupsList().stream().mapToInt(NodeGroup::getCount).sum();
  }

  /** {@code %C}: its CPUs, or those it asks for while pending. */
  public int cpus() {
    if (!job.getExecNodesList().isEmpty()) {
      return allocated().values().stream().mapToInt(Integer::intValue).sum();
    }
    ResourceRequest r = job.getResources();
    if (r.getNodeGroupsCount() == 0) {
      return Math.max(1, Math.max(r.getNcpus(), r.getProcs()));
    }
    return r.getNodeGroupsList().stream().mapToInt(g -> g.getCount() * g.getPpn()).sum();
  }

  /** Seconds it has run, its suspensions not counted (Slurm's job_time_used). */
  public long timeUsed() {
    if (job.getStartTime() == 0 || state() == State.PENDING) {
      return 0;
    }
    long end = job.getCompTime() > 0 ? job.getCompTime() : now;
    if (job.getSuspendedAt() > 0) {
      end = job.getSuspendedAt();
    }
    return Math.max(0, end - job.getStartTime() - job.getSuspendedSeconds());
  }

  /**
   * Its exit code as Slurm prints it, {@code status:signal}: {@code 3:0}, or {@code 0:9} for a job
   * killed by SIGKILL (Torque's 256 + 9); {@code 0:0} until it has ended.
   */
  public String exitCode() {
    int status = job.getExitStatus();
    if (job.getCompTime() == 0) {
      return "0:0";
    }
    if (status > 256) {
      return "0:" + (status - 256);
    }
    return status < 0 ? "1:0" : (status & 0xff) + ":0";
  }

  /** The directory it runs in: {@code -d}/{@code -D}, else where it was submitted. */
  public String workDir() {
    String dir = job.getInitWorkDir();
    return dir.isEmpty() ? job.getWorkDir() : dir;
  }

  /** Its time limit in seconds; 0 for none. */
  public long timeLimit() {
    return job.getResources().getWalltime();
  }
}
