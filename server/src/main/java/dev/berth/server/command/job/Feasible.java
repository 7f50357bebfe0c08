package dev.berth.server.command.job;

import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.Node;
import dev.berth.proto.Reservation;
import dev.berth.scheduler.Feasibility;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.schedule.StateView;
import dev.berth.server.state.ClusterState;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Refuses a job (submitted or altered) that could never run: on no combination of the cluster's
 * nodes as if they were empty, or, in a reservation's queue, of the reservation's nodes, or, with
 * cgroup_enable, where no node makes cgroups (a personal cluster, or hosts without them), or, as
 * root, where no mom runs root jobs.
 */
final class Feasible {
  private Feasible() {}

  /**
   * Why no node can give a job its cgroup: every node has reported, and each said it makes none. A
   * node that has not reported yet may make them.
   */
  private static Optional<String> withoutCgroups(ClusterState s) {
    Optional<String> why = Optional.empty();
    for (Node node : s.nodes().values()) {
      if (!node.getRegistered() || node.getNoCgroups().isEmpty()) {
        return Optional.empty();
      }
      if (why.isEmpty()) {
        why = Optional.of(node.getName() + ": " + node.getNoCgroups());
      }
    }
    return why.map(
        first ->
            "it has cgroup_enable = True (the server's cgroup_enable) and no node makes cgroups ("
                + first
                + ")");
  }

  /**
   * Why no node can run a root job: every node has reported, and no mom was started with
   * --root-jobs (a mom runs jobs as root only when told to, and only as root itself).
   */
  private static Optional<String> withoutRootJobs(ClusterState s) {
    for (Node node : s.nodes().values()) {
      if (!node.getRegistered() || node.getRunsRootJobs()) {
        return Optional.empty();
      }
    }
    return s.nodes().isEmpty()
        ? Optional.empty()
        : Optional.of(
            "it would run as root, and no node's mom runs jobs as root (start a mom as root with"
                + " --root-jobs: berth up --root-jobs, or --root-jobs in /etc/berth/mom.conf)");
  }

  /** Throws, saying {@code what} (e.g. "job can never run") and why, if the job cannot run. */
  static void require(ClusterState s, Job job, String what) {
    List<NodeCapacity> all = StateView.capacities(s);
    Optional<String> why = Feasibility.whyImpossible(job, all);
    Optional<Reservation> r = s.reservationOfQueue(job.getQueue());
    if (why.isEmpty() && r.isPresent()) {
      Set<String> reserved = Set.copyOf(r.get().getNodesList());
      why =
          Feasibility.whyImpossible(
              job,
              all.stream().filter(n -> reserved.contains(n.name())).toList(),
              "reservation " + r.get().getId());
    }
    if (why.isEmpty() && job.getCgroupEnable()) {
      why = withoutCgroups(s);
    }
    if (why.isEmpty() && job.getEuser().equals("root")) {
      why = withoutRootJobs(s);
    }
    why.ifPresent(
        reason -> {
          throw new CommandException(Error.Code.RESOURCES_UNAVAILABLE, what + ": " + reason);
        });
  }
}
