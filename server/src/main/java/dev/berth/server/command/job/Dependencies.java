package dev.berth.server.command.job;

import dev.berth.core.BadValueException;
import dev.berth.core.JobIds;
import dev.berth.proto.Dependency;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.server.command.CommandException;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.DependencyStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Job dependencies ({@code -W depend=afterok:12:13,afterany:14}). A job whose dependencies are not
 * yet met waits in H with a system hold, as in Torque; it is released when they are met and
 * deleted, with the reason, when one can no longer be met. The server finds those through the
 * state's {@link dev.berth.server.state.DependencyIndex}, at a cost of what waits on the job that
 * changed.
 */
public final class Dependencies {
  /**
   * The most jobs one job's dependencies may name. Torque bounds the whole -W depend value (64 KiB,
   * as Berth bounds every value); Berth bounds the count, which is what a submission costs: each
   * named job is looked up when the job is submitted, indexed while it waits, and held in memory
   * with it. More can be waited on through jobs that each wait on a part.
   */
  static final int MAX_DEPENDENCIES = 1000;

  private Dependencies() {}

  /**
   * The dependencies {@code value} names, each job looked up in {@code s}; Slurm's {@code
   * singleton} as {@code afterany} on every job of {@code owner} named {@code name} that has not
   * ended (so the job starts once those submitted before it have ended, one at a time in the order
   * they came; a job submitted later does not hold it back, as it does in Slurm's).
   */
  static List<Dependency> parse(
      String value, ClusterState s, String server, String owner, String name) {
    long named = value.chars().filter(c -> c == ':').count(); // each job id follows a colon
    if (named > MAX_DEPENDENCIES) {
      throw new CommandException(
          Error.Code.BAD_DEPENDENCY,
          "the dependencies name "
              + named
              + " jobs; a job may name at most "
              + MAX_DEPENDENCIES
              + " (to wait on more, let a few jobs each wait on a part and depend on those)");
    }
    List<Dependency> result = new ArrayList<>();
    for (String clause : value.split(",")) {
      String[] parts = clause.trim().split(":");
      String type = parts[0];
      if (type.equals(SINGLETON) && parts.length == 1) {
        singleton(s, owner, name).ifPresent(result::add);
        continue;
      }
      if (!DependencyStatus.TYPES.contains(type)) {
        throw new CommandException(
            Error.Code.BAD_DEPENDENCY,
            "dependency type '"
                + type
                + "' is not supported (use after, afterok, afternotok, afterany or singleton)");
      }
      if (parts.length < 2) {
        throw new CommandException(
            Error.Code.BAD_DEPENDENCY, "dependency '" + clause + "' names no job");
      }
      Dependency.Builder d = Dependency.newBuilder().setType(type);
      for (int i = 1; i < parts.length; i++) {
        String id = canonical(parts[i], server);
        // a task of an sbatch array by its own number too; an array by its number alone
        Job job =
            s.named(id)
                .or(
                    () ->
                        id.indexOf('[') < 0
                            ? s.job(JobIds.arrayOf(JobIds.number(id), JobIds.server(id)))
                            : Optional.empty())
                .orElse(null);
        if (job == null) {
          throw new CommandException(
              Error.Code.BAD_DEPENDENCY,
              "job " + id + " in dependency " + type + " does not exist");
        }
        if (!job.getArrayRequest().isEmpty() && type.equals("after")) {
          throw new CommandException(
              Error.Code.BAD_DEPENDENCY,
              "after on a whole job array ("
                  + job.getId()
                  + ") is not supported yet: name its subjobs, or wait for its end with afterany");
        }
        d.addJobIds(job.getId());
      }
      result.add(d.build());
    }
    return result;
  }

  /** Slurm's dependency on the owner's earlier jobs of the same name. */
  static final String SINGLETON = "singleton";

  /** {@code singleton} as afterany on the owner's unended jobs of that name; none when none. */
  private static Optional<Dependency> singleton(ClusterState s, String owner, String name) {
    Dependency.Builder d = Dependency.newBuilder().setType("afterany");
    for (Job job : s.jobs()) {
      boolean task = !job.getArrayParent().isEmpty(); // its array stands for it
      if (!task
          && job.getState() != JobState.COMPLETED
          && job.getEuser().equals(owner)
          && job.getName().equals(name)) {
        d.addJobIds(job.getId());
      }
    }
    if (d.getJobIdsCount() > MAX_DEPENDENCIES) {
      throw new CommandException(
          Error.Code.BAD_DEPENDENCY,
          "singleton: "
              + d.getJobIdsCount()
              + " jobs of that name have not ended; a job may wait on at most "
              + MAX_DEPENDENCIES);
    }
    return d.getJobIdsCount() == 0 ? Optional.empty() : Optional.of(d.build());
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
  static DependencyStatus status(Job job, ClusterState s) {
    DependencyStatus overall = DependencyStatus.MET;
    for (Dependency d : job.getDependenciesList()) {
      for (String id : d.getJobIdsList()) {
        DependencyStatus one = DependencyStatus.of(d.getType(), s.job(id).orElse(null));
        if (one == DependencyStatus.IMPOSSIBLE) {
          return DependencyStatus.IMPOSSIBLE;
        }
        if (one == DependencyStatus.PENDING) {
          overall = DependencyStatus.PENDING;
        }
      }
    }
    return overall;
  }

  /** A readable reason why a job's dependencies can never be met. */
  /**
   * The dependencies the job still waits for, as qsub -W depend= writes them ({@code
   * afterok:12.head,after:13.head}); empty when it waits for none.
   */
  public static String waitingFor(Job job, ClusterState s) {
    List<String> waiting = new java.util.ArrayList<>();
    for (Dependency d : job.getDependenciesList()) {
      for (String id : d.getJobIdsList()) {
        if (DependencyStatus.of(d.getType(), s.job(id).orElse(null)) == DependencyStatus.PENDING) {
          waiting.add(d.getType() + ":" + id);
        }
      }
    }
    return String.join(",", waiting);
  }

  public static String why(Job job, ClusterState s) {
    for (Dependency d : job.getDependenciesList()) {
      for (String id : d.getJobIdsList()) {
        if (DependencyStatus.of(d.getType(), s.job(id).orElse(null))
            == DependencyStatus.IMPOSSIBLE) {
          return "dependency " + d.getType() + ":" + id + " can never be satisfied";
        }
      }
    }
    return "";
  }
}
