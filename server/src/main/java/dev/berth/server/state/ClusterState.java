package dev.berth.server.state;

import com.google.protobuf.ByteString;
import dev.berth.core.ArrayRequest;
import dev.berth.core.JobIds;
import dev.berth.core.slurm.SlurmJobs;
import dev.berth.proto.Job;
import dev.berth.proto.Node;
import dev.berth.proto.Queue;
import dev.berth.proto.Reservation;
import dev.berth.scheduler.DecayedUsage;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * The whole cluster state the server holds: jobs and their scripts, nodes, queues and server
 * attributes, plus indexes derived from them (queued jobs in scheduling order, CPUs held per node,
 * completed jobs by completion time, array subjob counts, each owner's jobs and their bytes).
 *
 * <p>It is immutable and made of persistent collections: {@link StateMachine#apply} returns a new
 * state that shares almost everything with the old one, so readers (queries, the scheduler,
 * snapshots) hold a consistent view without copying and without locks.
 */
public final class ClusterState {
  public static final ClusterState EMPTY =
      new ClusterState(
          HashTreePMap.empty(),
          HashTreePMap.empty(),
          TreePMap.empty(),
          TreePMap.empty(),
          TreePMap.empty(),
          TreePMap.empty(EligibleKey.ORDER),
          TreePMap.empty(),
          HashTreePMap.empty(),
          TreePSet.empty(PurgeKey.ORDER),
          HashTreePMap.empty(),
          HashTreePMap.empty(),
          DependencyIndex.EMPTY,
          HashTreePMap.empty(),
          HashTreePMap.empty(),
          HashTreePMap.empty(),
          JobBytes.NONE,
          TreePMap.empty(),
          TreePMap.empty(),
          TreePMap.empty(),
          0,
          1);

  final PMap<String, Job> jobs;
  final PMap<String, ByteString> scripts;
  final PSortedMap<String, Node> nodes;
  final PSortedMap<String, Queue> queues;
  final PSortedMap<String, String> server;
  final PSortedMap<EligibleKey, Job> eligible;
  final PSortedMap<String, Job> holding;
  final PMap<String, NodeUsage> usage;
  final PSortedSet<PurgeKey> completed;
  final PMap<String, ArrayCounts> arrays;
  final PMap<String, String> submissions;
  final DependencyIndex dependencies;
  final PMap<String, JobCounts> queueCounts;
  final PMap<Owner, Integer> runningByOwner;
  final PMap<Owner, Integer> unfinishedByOwner;
  final JobBytes jobBytes;
  final PSortedMap<String, DecayedUsage> userUsage;
  final PSortedMap<String, DecayedUsage> accountUsage;
  final PSortedMap<String, Reservation> reservations;
  final long lastSeq;
  final long nextJobNumber;

  ClusterState(
      PMap<String, Job> jobs,
      PMap<String, ByteString> scripts,
      PSortedMap<String, Node> nodes,
      PSortedMap<String, Queue> queues,
      PSortedMap<String, String> server,
      PSortedMap<EligibleKey, Job> eligible,
      PSortedMap<String, Job> holding,
      PMap<String, NodeUsage> usage,
      PSortedSet<PurgeKey> completed,
      PMap<String, ArrayCounts> arrays,
      PMap<String, String> submissions,
      DependencyIndex dependencies,
      PMap<String, JobCounts> queueCounts,
      PMap<Owner, Integer> runningByOwner,
      PMap<Owner, Integer> unfinishedByOwner,
      JobBytes jobBytes,
      PSortedMap<String, DecayedUsage> userUsage,
      PSortedMap<String, DecayedUsage> accountUsage,
      PSortedMap<String, Reservation> reservations,
      long lastSeq,
      long nextJobNumber) {
    this.jobs = jobs;
    this.scripts = scripts;
    this.nodes = nodes;
    this.queues = queues;
    this.server = server;
    this.eligible = eligible;
    this.holding = holding;
    this.usage = usage;
    this.completed = completed;
    this.arrays = arrays;
    this.submissions = submissions;
    this.dependencies = dependencies;
    this.queueCounts = queueCounts;
    this.runningByOwner = runningByOwner;
    this.unfinishedByOwner = unfinishedByOwner;
    this.jobBytes = jobBytes;
    this.userUsage = userUsage;
    this.accountUsage = accountUsage;
    this.reservations = reservations;
    this.lastSeq = lastSeq;
    this.nextJobNumber = nextJobNumber;
  }

  /** A completed top-level job, ordered by completion time for keep_completed purging. */
  public record PurgeKey(long compTime, String jobId) {
    static final java.util.Comparator<PurgeKey> ORDER =
        java.util.Comparator.comparingLong(PurgeKey::compTime).thenComparing(PurgeKey::jobId);
  }

  /**
   * Whose jobs a count is of: a user's in one queue, or in all queues when {@code queue} is empty
   * (the keys of max_user_run and max_user_queuable on a queue and on the server).
   */
  public record Owner(String queue, String user) {}

  /**
   * Subjob counts of one array job, from which the array's own state is derived; {@code failed} of
   * the completed ones ended other than with exit status 0 (what a dependency on the whole array
   * asks).
   */
  public record ArrayCounts(int queued, int held, int running, int completed, int failed) {
    static final ArrayCounts NONE = new ArrayCounts(0, 0, 0, 0, 0);

    public int total() {
      return queued + held + running + completed;
    }
  }

  public Optional<Job> job(String id) {
    return Optional.ofNullable(jobs.get(id));
  }

  /**
   * The job of id {@code id} ({@code N.server}, canonical), or else the task of an sbatch array
   * whose own job number is N: Slurm's commands name a task by it (its SLURM_JOB_ID). Only arrays
   * are looked through, and only when no job has the id.
   */
  public Optional<Job> named(String id) {
    Job job = jobs.get(id);
    if (job != null || id.indexOf('[') >= 0) {
      return Optional.ofNullable(job);
    }
    long number = JobIds.number(id);
    for (String arrayId : arrays.keySet()) {
      Job parent = jobs.get(arrayId);
      if (parent != null
          && SlurmJobs.sbatch(parent)
          && number > parent.getNumber()
          && number < parent.getNumber() + parent.getArraySize()
          && JobIds.server(arrayId).equals(JobIds.server(id))) {
        int index =
            ArrayRequest.parse(parent.getArrayRequest(), Integer.MAX_VALUE)
                .indices()
                .get((int) (number - parent.getNumber()));
        return job(JobIds.subjobOf(parent.getNumber(), index, JobIds.server(arrayId)));
      }
    }
    return Optional.empty();
  }

  public Collection<Job> jobs() {
    return jobs.values();
  }

  public int jobCount() {
    return jobs.size();
  }

  /** The script of a job; subjobs share their array's. */
  public ByteString script(Job job) {
    String owner = job.getArrayParent().isEmpty() ? job.getId() : job.getArrayParent();
    return scripts.getOrDefault(owner, ByteString.EMPTY);
  }

  public Optional<Node> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }

  public PSortedMap<String, Node> nodes() {
    return nodes;
  }

  public NodeUsage usage(String node) {
    return usage.getOrDefault(node, NodeUsage.NONE);
  }

  public Optional<Queue> queue(String name) {
    return Optional.ofNullable(queues.get(name));
  }

  public PSortedMap<String, Queue> queues() {
    return queues;
  }

  public PSortedMap<String, String> serverAttributes() {
    return server;
  }

  public Optional<String> serverAttribute(String name) {
    return Optional.ofNullable(server.get(name));
  }

  /** Queued jobs (not array parents) in submission order: higher -p first, then submission. */
  public PSortedMap<EligibleKey, Job> eligible() {
    return eligible;
  }

  /** Jobs that hold CPUs on nodes (running or exiting), by id. */
  public PSortedMap<String, Job> holding() {
    return holding;
  }

  /** Completed top-level jobs, oldest completion first. */
  public PSortedSet<PurgeKey> completed() {
    return completed;
  }

  /**
   * Jobs held by the system until their dependencies are met, indexed from the jobs they name, so
   * that what a job's change releases is found without looking at any other waiting job.
   */
  public DependencyIndex dependencies() {
    return dependencies;
  }

  /** How many jobs of {@code queue} are in each state (qstat -Q). */
  public JobCounts counts(String queue) {
    return queueCounts.getOrDefault(queue, JobCounts.NONE);
  }

  /** How many jobs are in each state, all queues together (qstat -B). */
  public JobCounts counts() {
    JobCounts all = JobCounts.NONE;
    for (JobCounts c : queueCounts.values()) {
      all = all.plus(c);
    }
    return all;
  }

  /**
   * How many jobs {@code owner} has running or exiting (holding nodes), counted as qstat counts
   * them: array jobs only through their subjobs.
   */
  public int running(Owner owner) {
    return runningByOwner.getOrDefault(owner, 0);
  }

  /**
   * How many jobs {@code owner} has that have not completed (queued, held, waiting, running or
   * exiting), counted as qstat counts them: array jobs only through their subjobs.
   */
  public int unfinished(Owner owner) {
    return unfinishedByOwner.getOrDefault(owner, 0);
  }

  /** What the jobs take of the server's memory, by owner and in all. */
  public JobBytes jobBytes() {
    return jobBytes;
  }

  /** Each user's fair-share usage, as last charged (decay it to now with {@link #halfLife}). */
  public PSortedMap<String, DecayedUsage> userUsage() {
    return userUsage;
  }

  /** Each account's fair-share usage, as last charged. */
  public PSortedMap<String, DecayedUsage> accountUsage() {
    return accountUsage;
  }

  /** The administrators' reservations by id, finished ones until their queues are empty. */
  public PSortedMap<String, Reservation> reservations() {
    return reservations;
  }

  /** The reservation whose queue {@code queue} is, if it is one's. */
  public Optional<Reservation> reservationOfQueue(String queue) {
    for (Reservation r : reservations.values()) {
      if (r.getQueue().equals(queue)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /** The fair-share half-life in seconds. */
  public long halfLife() {
    return UsageCharges.halfLife(server);
  }

  public ArrayCounts arrayCounts(String arrayId) {
    return arrays.getOrDefault(arrayId, ArrayCounts.NONE);
  }

  /** The job a qsub's submission id made, while that job is known. */
  public Optional<Job> jobOfSubmission(String submissionId) {
    return Optional.ofNullable(submissions.get(submissionId)).map(jobs::get);
  }

  /** The sequence number of the last event applied; 0 for the empty state. */
  public long lastSeq() {
    return lastSeq;
  }

  public long nextJobNumber() {
    return nextJobNumber;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ClusterState s)) {
      return false;
    }
    return lastSeq == s.lastSeq
        && nextJobNumber == s.nextJobNumber
        && jobs.equals(s.jobs)
        && scripts.equals(s.scripts)
        && nodes.equals(s.nodes)
        && queues.equals(s.queues)
        && server.equals(s.server)
        && eligible.equals(s.eligible)
        && holding.equals(s.holding)
        && usage.equals(s.usage)
        && completed.equals(s.completed)
        && arrays.equals(s.arrays)
        && submissions.equals(s.submissions)
        && dependencies.equals(s.dependencies)
        && queueCounts.equals(s.queueCounts)
        && runningByOwner.equals(s.runningByOwner)
        && unfinishedByOwner.equals(s.unfinishedByOwner)
        && jobBytes.equals(s.jobBytes)
        && userUsage.equals(s.userUsage)
        && accountUsage.equals(s.accountUsage)
        && reservations.equals(s.reservations);
  }

  @Override
  public int hashCode() {
    return Objects.hash(lastSeq, nextJobNumber, jobs.size(), nodes.size());
  }

  @Override
  public String toString() {
    return "ClusterState{seq="
        + lastSeq
        + ", jobs="
        + jobs.size()
        + ", nodes="
        + nodes.size()
        + ", queues="
        + queues.size()
        + "}";
  }
}
