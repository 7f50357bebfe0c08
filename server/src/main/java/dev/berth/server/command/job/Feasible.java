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
import java.util.function.Predicate;

/**
 * Refuses a job (submitted or altered) that could never run: with cgroup_enable, where no node
 * makes cgroups (a personal cluster, or hosts without them); as root, where no mom runs root jobs;
 * on no combination of the cluster's nodes as if they were empty (only those that can run it:
 * {@link dev.berth.scheduler.Hosting}), or, in a reservation's queue, of the reservation's nodes.
 */
final class Feasible {
  private Feasible() {}

  /**
   * Whether no node can do what {@code can} asks: there are nodes, every one has reported, and none
   * can. A node that has not reported yet may.
   */
  private static boolean noNode(ClusterState s, Predicate<Node> can) {
    return !s.nodes().isEmpty()
        && s.nodes().values().stream().allMatch(n -> n.getRegistered() && !can.test(n));
  }

  /** Why no node can give a job its cgroup: each says why it makes none (the first is shown). */
  private static Optional<String> withoutCgroups(ClusterState s) {
    if (!noNode(s, n -> n.getNoCgroups().isEmpty())) {
      return Optional.empty();
    }
    Node first = s.nodes().values().iterator().next();
    return Optional.of(
        "it has cgroup_enable = True (the server's cgroup_enable) and no node makes cgroups ("
            + first.getName()
            + ": "
            + first.getNoCgroups()
            + ")");
  }

  /**
   * Why no node can run a root job: no mom was started with --root-jobs (a mom runs jobs as root
   * only when told to, and only as root itself).
   */
  private static Optional<String> withoutRootJobs(ClusterState s) {
    return noNode(s, Node::getRunsRootJobs)
        ? Optional.of(
            "it would run as root, and no node's mom runs jobs as root (start a mom as root with"
                + " --root-jobs: berth up --root-jobs, or --root-jobs in /etc/berth/mom.conf)")
        : Optional.empty();
  }

  /** Throws, saying {@code what} (e.g. "job can never run") and why, if the job cannot run. */
  static void require(ClusterState s, Job job, String what) {
    // what no node at all can do is said first, with its fix; a cluster where some nodes can is
    // left to the placement below, which takes only those
    Optional<String> why = job.getCgroupEnable() ? withoutCgroups(s) : Optional.empty();
    if (why.isEmpty() && job.getEuser().equals("root")) {
      why = withoutRootJobs(s);
    }
    List<NodeCapacity> all = StateView.capacities(s);
    if (why.isEmpty()) {
      why = Feasibility.whyImpossible(job, all);
    }
    Optional<Reservation> r = s.reservationOfQueue(job.getQueue());
    if (why.isEmpty() && r.isPresent()) {
      Set<String> reserved = Set.copyOf(r.get().getNodesList());
      why =
          Feasibility.whyImpossible(
              job,
              all.stream().filter(n -> reserved.contains(n.name())).toList(),
              "reservation " + r.get().getId());
    }
    why.ifPresent(
        reason -> {
          throw new CommandException(Error.Code.RESOURCES_UNAVAILABLE, what + ": " + reason);
        });
  }
}
