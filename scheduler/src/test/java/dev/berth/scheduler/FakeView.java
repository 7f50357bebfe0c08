package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A fixed {@link ClusterView}: the nodes and the eligible jobs in order, how many subjobs of each
 * array already run, the running jobs' ends, and the settings (first fit unless set). Records which
 * jobs the scheduler pulled and which arrays it asked about.
 */
final class FakeView implements ClusterView {
  static final SchedulerSettings FIRST_FIT =
      new SchedulerSettings(PriorityWeights.DEFAULT, 0, false);

  private final List<NodeCapacity> nodes;
  private final List<Job> jobs;
  private final Map<String, Integer> running;
  final List<String> pulled = new ArrayList<>();
  final List<String> askedAbout = new ArrayList<>();
  SchedulerSettings settings = FIRST_FIT;
  long now;
  List<RunningJob> runningJobs = List.of();
  List<AdvanceReservation> reservations = List.of();
  Set<String> preemptorQueues = Set.of();
  List<PreemptableJob> preemptable = List.of();
  List<SuspendedJob> suspended = List.of();
  Map<String, Integer> queuePriorities = Map.of();
  FairShare fairShare = FairShare.NONE;

  FakeView(List<NodeCapacity> nodes, List<Job> jobs, Map<String, Integer> running) {
    this.nodes = List.copyOf(nodes);
    this.jobs = List.copyOf(jobs);
    this.running = Map.copyOf(running);
  }

  FakeView(List<NodeCapacity> nodes, List<Job> jobs) {
    this(nodes, jobs, Map.of());
  }

  @Override
  public long now() {
    return now;
  }

  @Override
  public SchedulerSettings settings() {
    return settings;
  }

  @Override
  public List<NodeCapacity> nodes() {
    return nodes;
  }

  @Override
  public Iterable<Job> eligibleJobs() {
    return () ->
        new Iterator<>() {
          private final Iterator<Job> it = jobs.iterator();

          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Job next() {
            Job j = it.next();
            pulled.add(j.getId());
            return j;
          }
        };
  }

  @Override
  public List<RunningJob> runningJobs() {
    return runningJobs;
  }

  @Override
  public List<AdvanceReservation> reservations() {
    return reservations;
  }

  @Override
  public Set<String> preemptorQueues() {
    return preemptorQueues;
  }

  @Override
  public List<PreemptableJob> preemptable() {
    return preemptable;
  }

  @Override
  public List<SuspendedJob> suspended() {
    return suspended;
  }

  @Override
  public Map<String, Integer> queuePriorities() {
    return queuePriorities;
  }

  @Override
  public FairShare fairShare() {
    return fairShare;
  }

  /** Only arrays have limits here, their slot limits. */
  @Override
  public Map<RunLimit, Integer> limits(Job job) {
    if (job.getArrayParent().isEmpty() || job.getArraySlotLimit() == 0) {
      return Map.of();
    }
    return Map.of(RunLimit.array(job.getArrayParent()), job.getArraySlotLimit());
  }

  @Override
  public int running(RunLimit limit) {
    askedAbout.add(limit.array());
    return running.getOrDefault(limit.array(), 0);
  }
}
