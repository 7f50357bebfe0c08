package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A fixed {@link ClusterView}: the nodes and the eligible jobs in order, and how many subjobs of
 * each array already run. Records which jobs the scheduler pulled and which arrays it asked about.
 */
final class FakeView implements ClusterView {
  private final List<NodeCapacity> nodes;
  private final List<Job> jobs;
  private final Map<String, Integer> running;
  final List<String> pulled = new ArrayList<>();
  final List<String> askedAbout = new ArrayList<>();

  FakeView(List<NodeCapacity> nodes, List<Job> jobs, Map<String, Integer> running) {
    this.nodes = List.copyOf(nodes);
    this.jobs = List.copyOf(jobs);
    this.running = Map.copyOf(running);
  }

  FakeView(List<NodeCapacity> nodes, List<Job> jobs) {
    this(nodes, jobs, Map.of());
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

  /** Only arrays have limits here: the key is the array's id, the maximum its slot limit. */
  @Override
  public Map<String, Integer> limits(Job job) {
    if (job.getArrayParent().isEmpty() || job.getArraySlotLimit() == 0) {
      return Map.of();
    }
    return Map.of(job.getArrayParent(), job.getArraySlotLimit());
  }

  @Override
  public int running(String key) {
    askedAbout.add(key);
    return running.getOrDefault(key, 0);
  }
}
