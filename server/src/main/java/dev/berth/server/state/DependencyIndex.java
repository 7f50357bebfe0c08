package dev.berth.server.state;

import dev.berth.proto.Dependency;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * Which jobs wait on which, so that a change of one job costs what waits on that job: the jobs held
 * by the system until their dependencies are met, indexed from each job they name. A job (or an
 * array, whose subjobs carry the array's dependencies and wait together) that waits is a
 * <em>waiter</em>; for each it keeps how many of the jobs it names are still pending and how many
 * can never satisfy it, updated only when one of those jobs changes. The waiters whose dependencies
 * are now decided (all met, or one impossible) are kept apart, so that the server releases or
 * deletes them without looking at any other.
 *
 * <p>Like every index of {@link ClusterState} it is derived from the jobs alone, in any order they
 * are added, and made of persistent collections; {@link StateBuilder} keeps it in step through
 * {@link #with}.
 */
public final class DependencyIndex {
  static final DependencyIndex EMPTY = new DependencyIndex(DependencyStatus::of);

  /**
   * How the dependencies of a mask of types on one job stand: {@link DependencyStatus#of(int,
   * Job)}, or in a test one that counts its calls, which are the index's re-check work.
   */
  interface Rule {
    DependencyStatus status(int types, Job target);
  }

  /**
   * One waiter: its jobs still held for their dependencies (the job itself, or an array's held
   * subjobs), and how many of the jobs it names are pending or impossible for it.
   */
  record Waiter(PSortedSet<String> members, int pending, int impossible) {
    boolean decided() {
      return pending == 0 || impossible > 0;
    }
  }

  private final Rule rule;

  /** Each named job's waiters, with the mask of dependency types each has on it. */
  private final PMap<String, PSortedMap<String, Integer>> waitersOf;

  private final PMap<String, Waiter> waiters;
  private final PSortedSet<String> decided;

  private DependencyIndex(Rule rule) {
    this(rule, HashTreePMap.empty(), HashTreePMap.empty(), TreePSet.empty());
  }

  private DependencyIndex(
      Rule rule,
      PMap<String, PSortedMap<String, Integer>> waitersOf,
      PMap<String, Waiter> waiters,
      PSortedSet<String> decided) {
    this.rule = rule;
    this.waitersOf = waitersOf;
    this.waiters = waiters;
    this.decided = decided;
  }

  /** An empty index that decides with {@code rule} (for tests that count its work). */
  static DependencyIndex empty(Rule rule) {
    return new DependencyIndex(rule);
  }

  /** Whether {@code job} is held by the system until its dependencies are met. */
  private static boolean holds(Job job) {
    return job.getState() == JobState.HELD
        && job.getHolds().getSystem()
        && job.getDependenciesCount() > 0
        && job.getArrayRequest().isEmpty();
  }

  /** The waiter a held job belongs to: its array, or itself. */
  private static String waiterOf(Job job) {
    return job.getArrayParent().isEmpty() ? job.getId() : job.getArrayParent();
  }

  /** Whether {@code job} is among the jobs held for their dependencies. */
  public boolean waits(Job job) {
    Waiter w = waiters.get(waiterOf(job));
    return w != null && w.members().contains(job.getId());
  }

  /**
   * The waiters whose dependencies are decided, by id: the jobs the server is to release or delete
   * next.
   */
  public PSortedSet<String> decided() {
    return decided;
  }

  /** The jobs of waiter {@code id} still held for their dependencies. */
  public PSortedSet<String> members(String id) {
    Waiter w = waiters.get(id);
    return w == null ? TreePSet.empty() : w.members();
  }

  /** Whether one of the jobs waiter {@code id} names can never satisfy it. */
  public boolean impossible(String id) {
    Waiter w = waiters.get(id);
    return w != null && w.impossible() > 0;
  }

  /** How many waiters name {@code target}: what a change of that job costs. */
  int waitersOf(String target) {
    PSortedMap<String, Integer> of = waitersOf.get(target);
    return of == null ? 0 : of.size();
  }

  /**
   * The index after {@code job} entered ({@code sign} +1) or left (-1) the state; {@code jobs} are
   * the state's jobs at that moment, which a new waiter's named jobs are looked up in.
   */
  DependencyIndex with(Job job, int sign, PMap<String, Job> jobs) {
    Update u = new Update();
    PSortedMap<String, Integer> named = waitersOf.get(job.getId());
    if (named != null) {
      u.changed(job, sign, named);
    }
    if (holds(job)) {
      if (sign > 0) {
        u.join(job, jobs);
      } else {
        u.leave(job);
      }
    }
    return u.build();
  }

  /** One change of the index, made on local copies of its collections. */
  private final class Update {
    private PMap<String, PSortedMap<String, Integer>> waitersOf = DependencyIndex.this.waitersOf;
    private PMap<String, Waiter> waiters = DependencyIndex.this.waiters;
    private PSortedSet<String> decided = DependencyIndex.this.decided;

    DependencyIndex build() {
      return new DependencyIndex(rule, waitersOf, waiters, decided);
    }

    /** {@code target} entered or left: its waiters count what it means for them. */
    void changed(Job target, int sign, PSortedMap<String, Integer> named) {
      for (Map.Entry<String, Integer> e : named.entrySet()) {
        DependencyStatus status = rule.status(e.getValue(), target);
        if (status != DependencyStatus.MET) {
          Waiter w = waiters.get(e.getKey());
          put(
              e.getKey(),
              status == DependencyStatus.PENDING
                  ? new Waiter(w.members(), w.pending() + sign, w.impossible())
                  : new Waiter(w.members(), w.pending(), w.impossible() + sign));
        }
      }
    }

    /** A held job joins its waiter, which is made (from the job's dependencies) if it is new. */
    void join(Job job, PMap<String, Job> jobs) {
      String id = waiterOf(job);
      Waiter w = waiters.get(id);
      if (w != null) {
        put(id, new Waiter(w.members().plus(job.getId()), w.pending(), w.impossible()));
        return;
      }
      int pending = 0;
      int impossible = 0;
      for (Map.Entry<String, Integer> e : types(job).entrySet()) {
        String target = e.getKey();
        waitersOf =
            waitersOf.plus(
                target, waitersOf.getOrDefault(target, TreePMap.empty()).plus(id, e.getValue()));
        switch (rule.status(e.getValue(), jobs.get(target))) {
          case PENDING -> pending++;
          case IMPOSSIBLE -> impossible++;
          case MET -> {}
        }
      }
      put(id, new Waiter(TreePSet.singleton(job.getId()), pending, impossible));
    }

    /** A job no longer held leaves its waiter, which goes with its last job. */
    void leave(Job job) {
      String id = waiterOf(job);
      Waiter w = waiters.get(id);
      if (w == null || !w.members().contains(job.getId())) {
        throw new IllegalTransitionException("job " + job.getId() + " was not waiting");
      }
      if (w.members().size() > 1) {
        put(id, new Waiter(w.members().minus(job.getId()), w.pending(), w.impossible()));
        return;
      }
      for (String target : types(job).keySet()) {
        PSortedMap<String, Integer> rest = waitersOf.get(target).minus(id);
        waitersOf = rest.isEmpty() ? waitersOf.minus(target) : waitersOf.plus(target, rest);
      }
      waiters = waiters.minus(id);
      decided = decided.minus(id);
    }

    private void put(String id, Waiter w) {
      waiters = waiters.plus(id, w);
      decided = w.decided() ? decided.plus(id) : decided.minus(id);
    }
  }

  /** The jobs {@code job} names, each with the mask of the dependency types it has on it. */
  private static Map<String, Integer> types(Job job) {
    Map<String, Integer> types = new TreeMap<>();
    for (Dependency d : job.getDependenciesList()) {
      int bit = DependencyStatus.bit(d.getType());
      for (String target : d.getJobIdsList()) {
        types.merge(target, bit, (a, b) -> a | b);
      }
    }
    return types;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DependencyIndex d
        && waitersOf.equals(d.waitersOf)
        && waiters.equals(d.waiters)
        && decided.equals(d.decided);
  }

  @Override
  public int hashCode() {
    return Objects.hash(waiters.size(), decided.size());
  }

  @Override
  public String toString() {
    return "DependencyIndex{waiters=" + waiters.size() + ", decided=" + decided + "}";
  }
}
