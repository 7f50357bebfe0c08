package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.List;
import java.util.Map;

/** The read-only view of the cluster a scheduling cycle works from. */
public interface ClusterView {
  /** Nodes in placement order. */
  List<NodeCapacity> nodes();

  /** Jobs that may start now (state Q, queue started), highest priority first. */
  Iterable<Job> eligibleJobs();

  /**
   * The running-job limits that apply to {@code job}, each as an opaque key (an array's slot limit,
   * its queue's max_running, its user's max_user_run, ...) with its maximum.
   */
  Map<String, Integer> limits(Job job);

  /** How many jobs run now under a limit key. */
  int running(String limitKey);
}
