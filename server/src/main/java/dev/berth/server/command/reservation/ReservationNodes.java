package dev.berth.server.command.reservation;

import dev.berth.core.BadValueException;
import dev.berth.core.NodeSpec;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Reservation;
import dev.berth.proto.ResourceRequest;
import dev.berth.scheduler.Feasibility;
import dev.berth.scheduler.NodeCapacity;
import dev.berth.scheduler.Placement;
import dev.berth.scheduler.RunningJob;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.schedule.StateView;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The whole nodes a reservation gets for its node spec: none that another live reservation holds at
 * any moment of the window; usable ones before down or offline ones, then those whose jobs end
 * soonest. Says which of them are not usable, and which jobs on them may still run when it begins.
 */
record ReservationNodes(List<String> nodes, List<String> warnings) {
  static ReservationNodes choose(ClusterState s, ReservationRequest request, long now) {
    ResourceRequest.Builder wanted = ResourceRequest.newBuilder();
    try {
      wanted.addAllNodeGroups(NodeSpec.parse(request.nodes()).groups());
    } catch (BadValueException e) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "nodes=" + AttributeValues.shown(request.nodes()) + ": " + e.getMessage());
    }
    Job asked = Job.newBuilder().setResources(wanted).build();
    List<RunningJob> running = new StateView(s, now).runningJobs();
    Map<String, Long> lastEnd = new HashMap<>();
    for (RunningJob j : running) {
      j.allocations().forEach(a -> lastEnd.merge(a.getNode(), j.end(), Math::max));
    }
    List<NodeCapacity> all = StateView.capacities(s);
    Map<String, String> taken = takenOver(s, request.start(), request.end());
    List<NodeCapacity> candidates = new ArrayList<>();
    for (NodeCapacity n : all) {
      if (!taken.containsKey(n.name())) {
        candidates.add(n);
      }
    }
    candidates.sort(
        Comparator.comparing((NodeCapacity n) -> !n.usable())
            .thenComparing(n -> lastEnd.getOrDefault(n.name(), 0L)));
    Optional<List<NodeAllocation>> placed =
        Placement.place(asked, candidates.stream().map(NodeCapacity::empty).toList());
    if (placed.isEmpty()) {
      Optional<String> never = Feasibility.whyImpossible(asked, all);
      throw new CommandException(
          Error.Code.RESOURCES_UNAVAILABLE,
          "cannot reserve nodes="
              + AttributeValues.shown(request.nodes())
              + ": "
              + never.orElse(
                  "the nodes that would do are in other reservations over the window ("
                      + String.join(", ", new TreeSet<>(taken.values()))
                      + ")"));
    }
    List<String> nodes = placed.get().stream().map(NodeAllocation::getNode).distinct().toList();
    List<String> warnings = new ArrayList<>();
    Set<String> chosen = Set.copyOf(nodes);
    for (NodeCapacity n : all) {
      if (chosen.contains(n.name()) && !n.usable()) {
        warnings.add(
            "node "
                + n.name()
                + " is down or offline, or its mom has not reported: the reservation's jobs"
                + " cannot use it until it is up");
      }
    }
    for (RunningJob j : running) {
      stillRunning(j, chosen, request.start()).ifPresent(warnings::add);
    }
    return new ReservationNodes(nodes, warnings);
  }

  /** The nodes of live reservations whose windows meet [start, end), each with one's id. */
  private static Map<String, String> takenOver(ClusterState s, long start, long end) {
    Map<String, String> taken = new HashMap<>();
    for (Reservation r : s.reservations().values()) {
      if (ReservationCommands.live(r) && r.getStart() < end && start < r.getEnd()) {
        r.getNodesList().forEach(n -> taken.putIfAbsent(n, r.getId()));
      }
    }
    return taken;
  }

  /** A job on the reserved nodes that may still run when the window opens: it is not stopped. */
  private static Optional<String> stillRunning(RunningJob j, Set<String> reserved, long start) {
    if (j.end() <= start) {
      return Optional.empty();
    }
    List<String> on =
        j.allocations().stream()
            .map(NodeAllocation::getNode)
            .filter(reserved::contains)
            .distinct()
            .toList();
    if (on.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "job "
            + j.jobId()
            + " on "
            + String.join(", ", on)
            + (j.end() == RunningJob.UNKNOWN_END
                ? " has no walltime and may still run when the reservation begins"
                : " may run until " + (j.end() - start) + " s after the reservation begins")
            + "; the reservation's jobs get those CPUs only when it ends");
  }
}
