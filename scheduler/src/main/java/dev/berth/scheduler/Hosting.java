package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * Which jobs a node's mom can run, besides what they ask for: a job with cgroup_enable only where
 * the mom makes cgroups, a job of root's only where the mom was started with --root-jobs. A node
 * whose mom has not reported yet is taken to run any ({@link #ANY}), as its CPUs are taken to be
 * there.
 */
public record Hosting(boolean cgroups, boolean rootJobs) {
  public static final Hosting ANY = new Hosting(true, true);

  /** Whether the node can run {@code job}. */
  public boolean admits(Job job) {
    return (cgroups || !job.getCgroupEnable()) && (rootJobs || !runsAsRoot(job));
  }

  /** What a node must do for {@code job}, as words after "nodes that": empty when nothing. */
  public static String needs(Job job) {
    List<String> needs = new ArrayList<>();
    if (job.getCgroupEnable()) {
      needs.add("make cgroups");
    }
    if (runsAsRoot(job)) {
      needs.add("run root's jobs");
    }
    return String.join(" and ", needs);
  }

  private static boolean runsAsRoot(Job job) {
    return job.getEuser().equals("root");
  }
}
