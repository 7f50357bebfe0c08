package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Works out jobs' multifactor priorities at one moment, on one cluster. */
public final class Priorities {
  private static final int USER_MIN = -1024;
  private static final int USER_SPAN = 2047;

  private final PriorityWeights weights;
  private final long now;
  private final long clusterCpus;
  private final Map<String, Integer> queuePriorities;
  private final int lowestQueue;
  private final int highestQueue;
  private final FairShare fairShare;

  /**
   * @param queuePriorities every queue's Priority attribute (0 where unset); a job's queue factor
   *     places its queue between the lowest and the highest of them
   * @param fairShare the users' and accounts' fair-share factors, asked for only when weighted
   */
  public Priorities(
      PriorityWeights weights,
      long now,
      long clusterCpus,
      Map<String, Integer> queuePriorities,
      Supplier<FairShare> fairShare) {
    this.fairShare = weights.fairShare() == 0 ? FairShare.NONE : fairShare.get();
    this.weights = weights;
    this.now = now;
    this.clusterCpus = Math.max(1, clusterCpus);
    this.queuePriorities = Map.copyOf(queuePriorities);
    Collection<Integer> all = this.queuePriorities.values();
    this.lowestQueue = all.stream().mapToInt(Integer::intValue).min().orElse(0);
    this.highestQueue = all.stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  public JobPriority of(Job job) {
    return new JobPriority(
        weights.age() == 0 ? 0 : weights.age() * age(job),
        weights.jobSize() == 0 ? 0 : weights.jobSize() * size(job),
        weights.queue() == 0 ? 0 : weights.queue() * queue(job),
        weights.user() * (job.getPriority() - USER_MIN) / USER_SPAN,
        weights.fairShare() == 0 ? 0 : weights.fairShare() * fairShare.factor(job));
  }

  private double age(Job job) {
    long since = job.getEtime() > 0 ? job.getEtime() : job.getQtime();
    long age = Math.min(weights.maxAgeSeconds(), Math.max(0, now - since));
    return age / (double) weights.maxAgeSeconds();
  }

  private double size(Job job) {
    double share = Math.min(1.0, Placement.cpus(job.getResources()) / (double) clusterCpus);
    return weights.favorSmall() ? 1 - share : share;
  }

  private double queue(Job job) {
    if (highestQueue == lowestQueue) {
      return 0;
    }
    long p = queuePriorities.getOrDefault(job.getQueue(), 0);
    return (p - lowestQueue) / (double) ((long) highestQueue - lowestQueue);
  }

  /**
   * The jobs from the highest priority down, given in submission order (higher -p first, then
   * submission), which breaks ties. When only -p counts that is already the order, and the jobs are
   * read only as far as the caller reads.
   */
  public Iterable<Job> order(Iterable<Job> submissionOrder) {
    if (weights.ordersAsSubmitted()) {
      return submissionOrder;
    }
    record Ranked(Job job, double priority) {}
    List<Ranked> ranked = new ArrayList<>();
    for (Job j : submissionOrder) {
      ranked.add(new Ranked(j, of(j).value()));
    }
    // a stable sort: jobs of equal priority stay in submission order
    ranked.sort(Comparator.comparingDouble((Ranked r) -> -r.priority()));
    return ranked.stream().map(Ranked::job).toList();
  }
}
