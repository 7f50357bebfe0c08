package dev.berth.server.state;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.util.List;

/**
 * Where one dependency stands ({@code afterok:12}): met, still pending, or never to be met.
 * Torque's rules: {@code after} once the job started, {@code afterok} / {@code afternotok} once it
 * ended with a zero / non-zero exit status, {@code afterany} once it ended in any way; a job no
 * longer known (purged after it ended) counts as met. On a whole array (Slurm's {@code afterok:12}
 * of an array): once every subjob has ended, {@code afterok} if each ended with 0, {@code
 * afternotok} if one did not. (The server refuses {@code after} on a whole array, which shows R
 * while any subjob runs, started or not the others; should one come, it waits for the end.)
 */
public enum DependencyStatus {
  MET,
  PENDING,
  IMPOSSIBLE;

  /** The dependency types Berth supports, in the order of their bits in a type mask. */
  public static final List<String> TYPES = List.of("after", "afterok", "afternotok", "afterany");

  /** Where a dependency of {@code type} on {@code target} (null: no longer known) stands. */
  public static DependencyStatus of(String type, Job target) {
    if (target == null) {
      return MET;
    }
    boolean done = target.getState() == JobState.COMPLETED;
    boolean array = !target.getArrayRequest().isEmpty() && target.getArrayParent().isEmpty();
    boolean ok =
        done
            && (array
                ? target.getArrayFailed() == 0
                : target.hasExitStatus() && target.getExitStatus() == 0);
    boolean ran = array ? done : target.getStartTime() > 0;
    return switch (type) {
      case "after" -> ran ? MET : done ? IMPOSSIBLE : PENDING;
      case "afterok" -> !done ? PENDING : ok ? MET : IMPOSSIBLE;
      case "afternotok" -> !done ? PENDING : ok ? IMPOSSIBLE : MET;
      case "afterany" -> done ? MET : PENDING;
      default -> throw new IllegalArgumentException("unknown dependency type " + type);
    };
  }

  /**
   * Where the dependencies of every type in {@code types} (a mask of {@link #TYPES} bits) on one
   * target stand together: impossible if one is, else pending if one is, else met.
   */
  public static DependencyStatus of(int types, Job target) {
    DependencyStatus all = MET;
    for (int bit = 0; bit < TYPES.size(); bit++) {
      if ((types & (1 << bit)) != 0) {
        DependencyStatus one = of(TYPES.get(bit), target);
        if (one.ordinal() > all.ordinal()) {
          all = one;
        }
      }
    }
    return all;
  }

  /** The bit of {@code type} in a type mask. */
  static int bit(String type) {
    int i = TYPES.indexOf(type);
    if (i < 0) {
      throw new IllegalArgumentException("unknown dependency type " + type);
    }
    return 1 << i;
  }
}
