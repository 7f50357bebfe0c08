package dev.berth.server.state;

import com.google.protobuf.ByteString;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Queue;
import dev.berth.proto.Reservation;
import dev.berth.scheduler.DecayedUsage;
import dev.berth.server.state.ClusterState.ArrayCounts;
import dev.berth.server.state.ClusterState.PurgeKey;
import java.util.List;
import org.pcollections.PMap;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;

/**
 * The next state while one event is applied. Every job change goes through {@link #replace}, so the
 * derived indexes (queued order, completed order, jobs awaiting dependencies, array counts and the
 * array's own state, each queue's counts by state, each owner's unfinished and running jobs, what
 * each owner's jobs take in memory) can never drift from the jobs themselves.
 */
final class StateBuilder {
  PMap<String, Job> jobs;
  PMap<String, ByteString> scripts;
  PSortedMap<String, Node> nodes;
  PSortedMap<String, Queue> queues;
  PSortedMap<String, String> server;
  PSortedMap<EligibleKey, Job> eligible;
  PSortedMap<String, Job> holding;
  PMap<String, NodeUsage> usage;
  PSortedSet<PurgeKey> completed;
  PMap<String, ArrayCounts> arrays;
  PMap<String, String> submissions;
  DependencyIndex dependencies;
  PMap<String, JobCounts> queueCounts;
  PMap<ClusterState.Owner, Integer> runningByOwner;
  PMap<ClusterState.Owner, Integer> unfinishedByOwner;
  JobBytes jobBytes;
  PSortedMap<String, DecayedUsage> userUsage;
  PSortedMap<String, DecayedUsage> accountUsage;
  PSortedMap<String, Reservation> reservations;
  long lastSeq;
  long nextJobNumber;

  StateBuilder(ClusterState s) {
    jobs = s.jobs;
    scripts = s.scripts;
    nodes = s.nodes;
    queues = s.queues;
    server = s.server;
    eligible = s.eligible;
    holding = s.holding;
    usage = s.usage;
    completed = s.completed;
    arrays = s.arrays;
    submissions = s.submissions;
    dependencies = s.dependencies;
    queueCounts = s.queueCounts;
    runningByOwner = s.runningByOwner;
    unfinishedByOwner = s.unfinishedByOwner;
    jobBytes = s.jobBytes;
    userUsage = s.userUsage;
    accountUsage = s.accountUsage;
    reservations = s.reservations;
    lastSeq = s.lastSeq;
    nextJobNumber = s.nextJobNumber;
  }

  StateBuilder withSeq(long seq) {
    lastSeq = seq;
    return this;
  }

  ClusterState build() {
    return new ClusterState(
        jobs,
        scripts,
        nodes,
        queues,
        server,
        eligible,
        holding,
        usage,
        completed,
        arrays,
        submissions,
        dependencies,
        queueCounts,
        runningByOwner,
        unfinishedByOwner,
        jobBytes,
        userUsage,
        accountUsage,
        reservations,
        lastSeq,
        nextJobNumber);
  }

  Job require(String id) {
    Job job = jobs.get(id);
    if (job == null) {
      throw new IllegalTransitionException("no job " + id);
    }
    return job;
  }

  /** Adds a job that is not in the state yet. */
  void add(Job job) {
    if (jobs.containsKey(job.getId())) {
      throw new IllegalTransitionException("job " + job.getId() + " already exists");
    }
    jobs = jobs.plus(job.getId(), job);
    index(job, +1);
    if (!job.getSubmissionId().isEmpty() && job.getArrayParent().isEmpty()) {
      submissions = submissions.plus(job.getSubmissionId(), job.getId());
    }
  }

  /** Replaces {@code old} by {@code next} (same id) and keeps every index in step. */
  void replace(Job old, Job next) {
    index(old, -1);
    jobs = jobs.plus(next.getId(), next);
    index(next, +1);
  }

  /** Gives a job that has just been added its script. */
  void script(Job job, ByteString script) {
    scripts = scripts.plus(job.getId(), script);
    jobBytes = jobBytes.plus(job.getEuser(), JobBytes.script(script));
  }

  /** Removes a job, its script and its index entries. */
  void remove(Job job) {
    index(job, -1);
    jobs = jobs.minus(job.getId());
    ByteString script = scripts.get(job.getId());
    if (script != null) {
      scripts = scripts.minus(job.getId());
      jobBytes = jobBytes.plus(job.getEuser(), -JobBytes.script(script));
    }
    if (job.getId().equals(submissions.get(job.getSubmissionId()))) {
      submissions = submissions.minus(job.getSubmissionId());
    }
  }

  private void index(Job job, int sign) {
    boolean subjob = !job.getArrayParent().isEmpty();
    boolean arrayParent = !job.getArrayRequest().isEmpty();
    if (job.getState() == JobState.QUEUED && !arrayParent) {
      EligibleKey key = EligibleKey.of(job);
      eligible = sign > 0 ? eligible.plus(key, job) : eligible.minus(key);
    }
    if ((job.getState() == JobState.RUNNING || job.getState() == JobState.EXITING)
        && !arrayParent) {
      holding = sign > 0 ? holding.plus(job.getId(), job) : holding.minus(job.getId());
    }
    if (job.getState() == JobState.COMPLETED && !subjob) {
      PurgeKey key = new PurgeKey(job.getCompTime(), job.getId());
      completed = sign > 0 ? completed.plus(key) : completed.minus(key);
    }
    dependencies = dependencies.with(job, sign, jobs);
    Job parent = subjob ? jobs.get(job.getArrayParent()) : null;
    jobBytes = jobBytes.plus(job.getEuser(), sign * JobBytes.held(job, parent));
    if (subjob) {
      count(job, sign);
    }
    if (JobCounts.counts(job)) {
      JobCounts c = queueCounts.getOrDefault(job.getQueue(), JobCounts.NONE);
      JobCounts next = c.plus(job.getState(), sign);
      queueCounts =
          next.total() == 0
              ? queueCounts.minus(job.getQueue())
              : queueCounts.plus(job.getQueue(), next);
      ClusterState.Owner user = new ClusterState.Owner("", job.getEuser());
      ClusterState.Owner userInQueue = new ClusterState.Owner(job.getQueue(), job.getEuser());
      if (job.getState() != JobState.COMPLETED) {
        unfinishedByOwner = adjust(unfinishedByOwner, user, sign);
        unfinishedByOwner = adjust(unfinishedByOwner, userInQueue, sign);
      }
      if (job.getState() == JobState.RUNNING || job.getState() == JobState.EXITING) {
        runningByOwner = adjust(runningByOwner, user, sign);
        runningByOwner = adjust(runningByOwner, userInQueue, sign);
      }
    }
  }

  private static PMap<ClusterState.Owner, Integer> adjust(
      PMap<ClusterState.Owner, Integer> counts, ClusterState.Owner owner, int sign) {
    int next = counts.getOrDefault(owner, 0) + sign;
    return next == 0 ? counts.minus(owner) : counts.plus(owner, next);
  }

  private void count(Job subjob, int sign) {
    String parentId = subjob.getArrayParent();
    ArrayCounts c = arrays.getOrDefault(parentId, ArrayCounts.NONE);
    int q = c.queued();
    int h = c.held();
    int r = c.running();
    int d = c.completed();
    int f = c.failed();
    switch (subjob.getState()) {
      case QUEUED -> q += sign;
      case HELD, WAITING -> h += sign;
      case RUNNING, EXITING -> r += sign;
      case COMPLETED -> {
        d += sign;
        f += subjob.hasExitStatus() && subjob.getExitStatus() == 0 ? 0 : sign;
      }
      default -> throw new IllegalTransitionException("subjob " + subjob.getId() + " has no state");
    }
    ArrayCounts next = new ArrayCounts(q, h, r, d, f);
    arrays = next.total() == 0 ? arrays.minus(parentId) : arrays.plus(parentId, next);
    if (sign > 0) {
      deriveParentState(parentId, next, subjob);
    }
  }

  /**
   * An array job shows R while any subjob runs, then Q, then H, and C once all are done, when it
   * keeps how many of them failed (for the jobs that wait on the whole array).
   */
  private void deriveParentState(String parentId, ArrayCounts c, Job changed) {
    Job parent = jobs.get(parentId);
    if (parent == null || c.total() < parent.getArraySize()) {
      return; // still being built, or being purged
    }
    JobState state;
    if (c.running() > 0) {
      state = JobState.RUNNING;
    } else if (c.queued() > 0) {
      state = JobState.QUEUED;
    } else if (c.held() > 0) {
      state = JobState.HELD;
    } else {
      state = JobState.COMPLETED;
    }
    if (state != parent.getState()) {
      Job.Builder next = parent.toBuilder().setState(state).setMtime(changed.getMtime());
      if (state == JobState.COMPLETED) {
        next.setCompTime(Math.max(changed.getCompTime(), changed.getMtime()))
            .setArrayFailed(c.failed());
      }
      replace(parent, next.build());
    }
  }

  /** Records that {@code jobId} holds the CPUs, memory and GPUs of one allocation. */
  void hold(NodeAllocation a, String jobId) {
    if (!nodes.containsKey(a.getNode())) {
      throw new IllegalTransitionException(
          "job " + jobId + " placed on unknown node " + a.getNode());
    }
    NodeUsage u = usage.getOrDefault(a.getNode(), NodeUsage.NONE);
    var cpus = claim(u.cpuJobs(), a.getCpusList(), "cpu", a.getNode(), jobId);
    var gpus = claim(u.gpuJobs(), a.getGpuIdsList(), "gpu", a.getNode(), jobId);
    usage =
        usage.plus(
            a.getNode(),
            new NodeUsage(
                cpus,
                u.memReserved() + a.getMem(),
                u.gpusReserved() + a.getGpus(),
                gpus,
                u.lentCpus()));
  }

  /**
   * {@code held} with each of {@code ids} (CPUs or GPUs of {@code node}) given to {@code jobId};
   * one held by another job is an illegal transition.
   */
  private static PSortedMap<Integer, String> claim(
      PSortedMap<Integer, String> held, List<Integer> ids, String what, String node, String jobId) {
    for (int id : ids) {
      String holder = held.get(id);
      if (holder != null) {
        throw new IllegalTransitionException(
            what + " " + id + " of " + node + " is held by " + holder + ", not free for " + jobId);
      }
      held = held.plus(id, jobId);
    }
    return held;
  }

  /** {@code held} without those of {@code ids} that {@code jobId} holds. */
  private static PSortedMap<Integer, String> free(
      PSortedMap<Integer, String> held, List<Integer> ids, String jobId) {
    for (int id : ids) {
      if (jobId.equals(held.get(id))) {
        held = held.minus(id);
      }
    }
    return held;
  }

  /** Frees everything a running job holds. */
  void release(Job job) {
    for (NodeAllocation a : job.getExecNodesList()) {
      NodeUsage u = usage.getOrDefault(a.getNode(), NodeUsage.NONE);
      var cpus = free(u.cpuJobs(), a.getCpusList(), job.getId());
      var lent = free(u.lentCpus(), a.getCpusList(), job.getId());
      var gpus = free(u.gpuJobs(), a.getGpuIdsList(), job.getId());
      put(
          a.getNode(),
          new NodeUsage(
              cpus, u.memReserved() - a.getMem(), u.gpusReserved() - a.getGpus(), gpus, lent));
    }
  }

  /** What a confirmed suspended job holds: its memory and GPUs, and its CPUs as lent. */
  void holdSuspended(NodeAllocation a, String jobId) {
    hold(a.toBuilder().clearCpus().build(), jobId);
    NodeUsage u = usage.get(a.getNode());
    var lent = u.lentCpus();
    for (int cpu : a.getCpusList()) {
      String lender = lent.get(cpu);
      if (lender != null) {
        throw new IllegalTransitionException(
            "cpu " + cpu + " of " + a.getNode() + " is lent by " + lender + ", not " + jobId);
      }
      lent = lent.plus(cpu, jobId);
    }
    put(
        a.getNode(),
        new NodeUsage(u.cpuJobs(), u.memReserved(), u.gpusReserved(), u.gpuJobs(), lent));
  }

  /** A job on a CPU another suspended job lends may not be suspended itself: one lender a CPU. */
  void requireNotOnLentCpus(Job job) {
    for (NodeAllocation a : job.getExecNodesList()) {
      NodeUsage u = usage.getOrDefault(a.getNode(), NodeUsage.NONE);
      for (int cpu : a.getCpusList()) {
        String lender = u.lentCpus().get(cpu);
        if (lender != null) {
          throw new IllegalTransitionException(
              "job "
                  + job.getId()
                  + " runs on cpu "
                  + cpu
                  + " of "
                  + a.getNode()
                  + ", which suspended job "
                  + lender
                  + " lends");
        }
      }
    }
  }

  /** A suspended job lends its CPUs (to preemptors' jobs) and keeps its memory and GPUs. */
  void lendCpus(Job job) {
    requireNotOnLentCpus(job);
    for (NodeAllocation a : job.getExecNodesList()) {
      NodeUsage u = usage.getOrDefault(a.getNode(), NodeUsage.NONE);
      var cpus = u.cpuJobs();
      var lent = u.lentCpus();
      for (int cpu : a.getCpusList()) {
        if (job.getId().equals(cpus.get(cpu))) {
          cpus = cpus.minus(cpu);
          lent = lent.plus(cpu, job.getId());
        }
      }
      put(a.getNode(), new NodeUsage(cpus, u.memReserved(), u.gpusReserved(), u.gpuJobs(), lent));
    }
  }

  /** A resumed job takes its CPUs back; each must be free of running jobs. */
  void takeBackCpus(Job job) {
    for (NodeAllocation a : job.getExecNodesList()) {
      NodeUsage u = usage.getOrDefault(a.getNode(), NodeUsage.NONE);
      var cpus = u.cpuJobs();
      var lent = u.lentCpus();
      for (int cpu : a.getCpusList()) {
        String holder = cpus.get(cpu);
        if (holder != null) {
          throw new IllegalTransitionException(
              "cpu "
                  + cpu
                  + " of "
                  + a.getNode()
                  + " is held by "
                  + holder
                  + ", so "
                  + job.getId()
                  + " cannot resume on it");
        }
        if (!job.getId().equals(lent.get(cpu))) {
          throw new IllegalTransitionException(
              "cpu " + cpu + " of " + a.getNode() + " is not lent by " + job.getId());
        }
        cpus = cpus.plus(cpu, job.getId());
        lent = lent.minus(cpu);
      }
      put(a.getNode(), new NodeUsage(cpus, u.memReserved(), u.gpusReserved(), u.gpuJobs(), lent));
    }
  }

  private void put(String node, NodeUsage next) {
    boolean nothing = next.idle() && next.memReserved() == 0 && next.gpusReserved() == 0;
    usage = nothing ? usage.minus(node) : usage.plus(node, next);
  }
}
