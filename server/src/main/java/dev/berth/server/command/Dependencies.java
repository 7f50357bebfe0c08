package dev.berth.server.command;

import dev.berth.core.BadValueException;
import dev.berth.core.JobIds;
import dev.berth.proto.Dependency;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Job dependencies ({@code -W depend=afterok:12:13,afterany:14}). A job whose dependencies are not
 * yet met waits in H with a system hold, as in Torque; it is released when they are met and
 * deleted, with the reason, when one can no longer be met.
 */
final class Dependencies {
  private static final Set<String> SUPPORTED = Set.of("after", "afterok", "afternotok", "afterany");

  enum Status {
    MET,
    PENDING,
    IMPOSSIBLE
  }

  private Dependencies() {}

  static List<Dependency> parse(String value, ClusterState s, String server) {
    List<Dependency> result = new ArrayList<>();
    for (String clause : value.split(",")) {
      String[] parts = clause.trim().split(":");
      String type = parts[0];
      if (!SUPPORTED.contains(type)) {
        throw new CommandException(
            Error.Code.BAD_DEPENDENCY,
            "dependency type '"
                + type
                + "' is not supported (use after, afterok, afternotok or afterany)");
      }
      if (parts.length < 2) {
        throw new CommandException(
            Error.Code.BAD_DEPENDENCY, "dependency '" + clause + "' names no job");
      }
      Dependency.Builder d = Dependency.newBuilder().setType(type);
      for (int i = 1; i < parts.length; i++) {
        String id = canonical(parts[i], server);
        if (s.job(id).isEmpty()) {
          throw new CommandException(
              Error.Code.BAD_DEPENDENCY,
              "job " + id + " in dependency " + type + " does not exist");
        }
        if (!s.job(id).get().getArrayRequest().isEmpty()) {
          throw new CommandException(
              Error.Code.BAD_DEPENDENCY,
              "dependencies on a whole job array (" + id + ") are not supported yet; name subjobs");
        }
        d.addJobIds(id);
      }
      result.add(d.build());
    }
    return result;
  }

  private static String canonical(String id, String server) {
    try {
      return JobIds.canonical(id, server);
    } catch (BadValueException e) {
      throw new CommandException(
          Error.Code.BAD_DEPENDENCY, "illegal dependency: " + e.getMessage());
    }
  }

  /** Whether all of a job's dependencies are met, still pending, or can never be met. */
  static Status status(Job job, ClusterState s) {
    Status overall = Status.MET;
    for (Dependency d : job.getDependenciesList()) {
      for (String id : d.getJobIdsList()) {
        Status one = status(d.getType(), s.job(id));
        if (one == Status.IMPOSSIBLE) {
          return Status.IMPOSSIBLE;
        }
        if (one == Status.PENDING) {
          overall = Status.PENDING;
        }
      }
    }
    return overall;
  }

  /** A readable reason why a job's dependencies can never be met. */
  static String why(Job job, ClusterState s) {
    for (Dependency d : job.getDependenciesList()) {
      for (String id : d.getJobIdsList()) {
        if (status(d.getType(), s.job(id)) == Status.IMPOSSIBLE) {
          return "dependency " + d.getType() + ":" + id + " can never be satisfied";
        }
      }
    }
    return "";
  }

  private static Status status(String type, Optional<Job> target) {
    if (target.isEmpty()) {
      return Status.MET; // purged after it completed; Torque treats it as met
    }
    Job t = target.get();
    boolean done = t.getState() == JobState.COMPLETED;
    boolean ok = done && t.hasExitStatus() && t.getExitStatus() == 0;
    boolean ran = t.getStartTime() > 0;
    return switch (type) {
      case "after" -> ran ? Status.MET : done ? Status.IMPOSSIBLE : Status.PENDING;
      case "afterok" -> !done ? Status.PENDING : ok ? Status.MET : Status.IMPOSSIBLE;
      case "afternotok" -> !done ? Status.PENDING : ok ? Status.IMPOSSIBLE : Status.MET;
      default -> done ? Status.MET : Status.PENDING;
    };
  }
}
