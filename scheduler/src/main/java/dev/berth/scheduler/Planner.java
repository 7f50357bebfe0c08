package dev.berth.scheduler;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One scheduling cycle: jobs from the highest priority down, each started first-fit if it fits now
 * without delaying a start reserved for a job before it (EASY backfill by walltime). The first
 * {@link SchedulerSettings#backfillDepth} jobs that cannot start get such a reservation, at the
 * earliest moment they fit; so a wide job is not overtaken for ever by narrow ones, and jobs behind
 * it still use what it leaves idle until then. With a depth of 0 any job that fits passes any that
 * does not (Torque's fifo scheduler with strict_fifo off). Every job looked at and not started gets
 * the reason, and reserved ones their planned start.
 *
 * <p>An administrator's reservation ({@link AdvanceReservation}) takes its nodes out of every other
 * job's plan over its window: a job that would still hold one of them at the window's start does
 * not start there. The reservation's own jobs start only inside the window, only on its nodes, and
 * are planned to end with it at the latest; they neither take nor honour the backfill reservations
 * of other jobs, which can never meet a window on its nodes.
 *
 * <p>Jobs of preemptor queues are looked at before all others (as Slurm's partition PriorityTier).
 * One that cannot start may requeue or suspend running jobs of preemptable queues (as their queue
 * says): the youngest first, as few as let it start now, then it waits for them to end or to be
 * suspended; while jobs it (or a delete) is killing still end, no more are preempted for it. The
 * CPUs of a suspended job are lent to preemptors' jobs only: a preemptor's job that fits on them
 * (with what else is free) starts there. A suspended job resumes as soon as no job runs on its CPUs
 * any more and no preemptor's job took them in the same cycle; other queues' jobs never get them
 * meanwhile.
 */
public final class Planner {
  /**
   * A job whose start cannot be planned (what it needs is held by jobs without a walltime, or is
   * down) takes no reservation and the next job is tried; after this many such searches in one
   * cycle no more are made, which bounds a cycle's work on a cluster without walltimes.
   */
  static final int MAX_FAILED_SEARCHES = 16;

  /** Preemptors' jobs that may requeue running jobs in one cycle: a bound on its work. */
  static final int MAX_PREEMPTING = 4;

  /** The most running jobs one preemptor's job may requeue, and the most it tries. */
  static final int MAX_VICTIMS = 64;

  private Planner() {}

  public static Plan plan(ClusterView view, int maxDecisions) {
    return plan(view, maxDecisions, Integer.MAX_VALUE);
  }

  /**
   * A plan that looks at no more than the first {@code maxConsidered} jobs by priority: bounded
   * work for a caller that cannot wait for a whole cycle over a long queue, and leaves the rest to
   * one. Looking at fewer jobs never breaks a reservation, since every reserved job comes before
   * the jobs that must not delay it.
   */
  public static Plan plan(ClusterView view, int maxDecisions, int maxConsidered) {
    return new Cycle(view, view.settings(), true).run(maxDecisions, maxConsidered);
  }

  /**
   * Starts the first jobs by priority that fit now, in order, and stops at the first that does not
   * (strict ordering, no reservation searched, nothing preempted): a plan that can never delay a
   * reservation another cycle made, and needs neither the running jobs' ends nor a look at every
   * job, for a caller on the server's own thread.
   */
  public static Plan inOrder(ClusterView view, int maxDecisions, int maxConsidered) {
    SchedulerSettings strict = new SchedulerSettings(view.settings().weights(), 0, true);
    return new Cycle(view, strict, false).run(maxDecisions, maxConsidered);
  }

  private static final class Cycle {
    private final ClusterView view;
    private final SchedulerSettings settings;
    private final long now;
    private final Availability availability;
    private final List<RunDecision> decisions = new ArrayList<>();
    private final Map<String, Waiting> waiting = new HashMap<>();
    private final Map<RunLimit, Integer> running = new HashMap<>();
    private final Map<String, AdvanceReservation> reservationOfQueue = new HashMap<>();
    private final Room room;
    private final boolean mayPreempt;
    private final Set<String> preemptorQueues;
    private final List<Preemption> preemptions = new ArrayList<>();
    private final Set<String> claimed = new HashSet<>();
    private List<PreemptableJob> preemptable;
    private List<SuspendedJob> suspended;
    private int preempting;
    private int heldStarts;
    private int failedSearches;

    /** For each shape of request, the earliest end at which it did not fit (nor will later). */
    private final Map<Shape, Long> notFitting = new HashMap<>();

    /**
     * Whether a shape of request fits on what is free now, and outside the windows that begin
     * before some end (by how many do): the parts of a reason, shared by the jobs of one shape (a
     * reason may be a few starts old).
     */
    private final Map<Shape, Boolean> fitsNow = new HashMap<>();

    private final Map<ShapeWindows, Boolean> fitsOutsideWindows = new HashMap<>();

    Cycle(ClusterView view, SchedulerSettings settings, boolean mayPreempt) {
      this.view = view;
      this.settings = settings;
      this.mayPreempt = mayPreempt;
      this.preemptorQueues = view.preemptorQueues();
      this.now = view.now();
      List<AdvanceReservation> windows = view.reservations();
      windows.forEach(r -> reservationOfQueue.put(r.queue(), r));
      this.availability = new Availability(now, view.nodes(), windows, view::runningJobs);
      this.room = new Room(availability.now(), availability::heldNow);
    }

    Plan run(int maxDecisions, int maxConsidered) {
      long cpus = view.nodes().stream().mapToLong(NodeCapacity::np).sum();
      Priorities priorities =
          new Priorities(settings.weights(), now, cpus, view.queuePriorities(), view::fairShare);
      Waiting rest = null;
      // set: no other job is looked at any more, but a reservation's still are (its nodes are
      // its own, whatever stops the others)
      Waiting stopped = null;
      int considered = 0;
      for (Job job : preemptorsFirst(priorities.order(view.eligibleJobs()))) {
        if (decisions.size() >= maxDecisions) {
          rest =
              new Waiting("the cycle started as many jobs as one cycle may; the next follows", 0);
          break;
        }
        if (considered++ >= maxConsidered) {
          rest = new Waiting("not looked at yet", 0);
          break;
        }
        AdvanceReservation own = reservationOfQueue.get(job.getQueue());
        if (own != null) {
          considerInside(job, own);
          continue;
        }
        if (stopped != null) {
          continue;
        }
        boolean mayRequeue = mayPreempt && preemptorQueues.contains(job.getQueue());
        if (room.free() == 0
            && !mayRequeue
            && (heldStarts >= settings.backfillDepth() || failedSearches >= MAX_FAILED_SEARCHES)) {
          stopped = new Waiting("no CPU is free", 0);
        } else if (!consider(job) && settings.strictOrdering()) {
          stopped = new Waiting("strict_ordering: waiting behind job " + job.getId(), 0);
        }
        if (stopped != null && reservationOfQueue.isEmpty()) {
          break;
        }
      }
      Waiting unexamined =
          rest != null ? rest : stopped != null ? stopped : new Waiting("not looked at yet", 0);
      return new Plan(decisions, preemptions, resumptions(), waiting, unexamined);
    }

    /**
     * The suspended jobs whose CPUs no job runs on and no preemptor's job took in this cycle: after
     * every preemptor's job had its chance at them, before any other job could (none may).
     */
    private List<String> resumptions() {
      if (!mayPreempt) {
        return List.of();
      }
      List<String> result = new ArrayList<>();
      for (SuspendedJob j : suspended()) {
        if (j.resumable() && !claimed.contains(j.jobId())) {
          result.add(j.jobId());
        }
      }
      return result;
    }

    /** The idle CPUs of each suspended job no preemptor's job has claimed in this cycle. */
    private List<List<NodeAllocation>> lentIdleCpus() {
      List<List<NodeAllocation>> result = new ArrayList<>();
      for (SuspendedJob j : suspended()) {
        if (!claimed.contains(j.jobId()) && !j.idleCpus().isEmpty()) {
          result.add(j.idleCpus());
        }
      }
      return result;
    }

    private List<SuspendedJob> suspended() {
      if (suspended == null) {
        suspended = view.suspended();
      }
      return suspended;
    }

    /** The jobs of preemptor queues first, each part in priority order. */
    private Iterable<Job> preemptorsFirst(Iterable<Job> ordered) {
      if (preemptorQueues.isEmpty()) {
        return ordered;
      }
      List<Job> first = new ArrayList<>();
      List<Job> rest = new ArrayList<>();
      for (Job job : ordered) {
        (preemptorQueues.contains(job.getQueue()) ? first : rest).add(job);
      }
      first.addAll(rest);
      return first;
    }

    /** Starts the job, or says why not (and reserves its start if it is among the first). */
    private boolean consider(Job job) {
      Map<RunLimit, Integer> limits = view.limits(job);
      Optional<String> limit = atALimit(limits);
      if (limit.isPresent()) {
        waiting.put(job.getId(), new Waiting(limit.get(), 0));
        return false;
      }
      long duration = RunningJob.duration(job);
      long end = RunningJob.endOf(now, duration);
      Shape shape = null;
      if (room.mayHold(job)) {
        shape = Shape.of(job);
        Long failed = notFitting.get(shape);
        // What is free only shrinks as the cycle goes on, and over a longer time: a request that
        // did not fit until some end fits until no later one.
        if (failed == null || end < failed) {
          Optional<List<NodeAllocation>> placed =
              Placement.place(job, availability.during(now, end));
          if (placed.isPresent()) {
            decisions.add(new RunDecision(job.getId(), placed.get()));
            start(placed.get(), end);
            limits.keySet().forEach(key -> running.merge(key, 1, Integer::sum));
            return true;
          }
          notFitting.merge(shape, end, Math::min);
        }
      }
      if (mayPreempt && preemptorQueues.contains(job.getQueue())) {
        if (startOnLentCpus(job, end)) {
          limits.keySet().forEach(key -> running.merge(key, 1, Integer::sum));
          return true;
        }
        // whatever room there is now: preempted jobs would give more back
        Optional<Waiting> preempted = preempt(job, end);
        if (preempted.isPresent()) {
          waiting.put(job.getId(), preempted.get());
          return false;
        }
      }
      waiting.put(job.getId(), blocked(job, shape, duration, end));
      return false;
    }

    /**
     * Starts a preemptor's job on the idle CPUs of suspended jobs (and what else is free now), if
     * it fits there. The suspended jobs whose CPUs it gets stay suspended; its memory is taken from
     * what is free, the lent CPUs were never free for anyone else.
     */
    private boolean startOnLentCpus(Job job, long end) {
      List<List<NodeAllocation>> lent = lentIdleCpus();
      if (lent.isEmpty()) {
        return false;
      }
      Optional<List<NodeAllocation>> placed =
          Placement.place(job, availability.withReleased(end, lent));
      if (placed.isEmpty()) {
        return false;
      }
      claimLenders(placed.get());
      decisions.add(new RunDecision(job.getId(), placed.get()));
      start(withoutLentCpus(placed.get()), end);
      return true;
    }

    /**
     * The allocations with only the CPUs that were free now: the lent ones are not free in the plan
     * before or after (their suspended job resumes on them), so only the rest is taken and given
     * back at the end.
     */
    private List<NodeAllocation> withoutLentCpus(List<NodeAllocation> placed) {
      List<NodeAllocation> result = new ArrayList<>(placed.size());
      for (NodeAllocation a : placed) {
        Set<Integer> free = new HashSet<>(availability.freeCpusNow(a.getNode()));
        result.add(
            a.toBuilder()
                .clearCpus()
                .addAllCpus(a.getCpusList().stream().filter(free::contains).toList())
                .build());
      }
      return result;
    }

    /**
     * Requeues or suspends the fewest running jobs of preemptable queues, the youngest first, that
     * let a preemptor's job start now; none if jobs being killed already will. Empty when
     * preempting cannot make room for it.
     */
    private Optional<Waiting> preempt(Job job, long end) {
      if (preempting >= MAX_PREEMPTING) {
        return Optional.empty();
      }
      if (preemptable == null) {
        preemptable = view.preemptable();
      }
      // being killed or suspended: what they give back comes without preempting anything more
      List<List<NodeAllocation>> ending = new ArrayList<>();
      List<PreemptableJob> candidates = new ArrayList<>();
      for (PreemptableJob p : preemptable) {
        if (claimed.contains(p.jobId())) {
          continue;
        }
        if (p.ending()) {
          ending.add(p.allocations());
        } else {
          candidates.add(p);
        }
      }
      Waiting waitForThem =
          new Waiting("it starts when jobs being preempted or deleted have made room", 0);
      if (!ending.isEmpty() && fitsWith(job, end, ending, List.of())) {
        return Optional.of(waitForThem);
      }
      // then with the idle CPUs suspended jobs lend, which alone were not enough
      List<List<NodeAllocation>> base = new ArrayList<>(ending);
      base.addAll(lentIdleCpus());
      if (base.size() > ending.size() && !ending.isEmpty() && fitsWith(job, end, base, List.of())) {
        claimLentCpusUsed(job, end, base, List.of());
        return Optional.of(waitForThem);
      }
      candidates.sort(
          Comparator.comparingLong(PreemptableJob::start)
              .reversed()
              .thenComparing(PreemptableJob::jobId, Comparator.reverseOrder()));
      List<PreemptableJob> chosen = new ArrayList<>();
      for (PreemptableJob c : candidates) {
        if (chosen.size() >= MAX_VICTIMS) {
          return Optional.empty();
        }
        chosen.add(c);
        if (fitsWith(job, end, base, chosen)) {
          fewest(job, end, base, chosen);
          preempting++;
          claimLentCpusUsed(job, end, base, chosen);
          for (PreemptableJob v : chosen) {
            claimed.add(v.jobId());
            preemptions.add(new Preemption(v.jobId(), job.getId(), v.suspend()));
          }
          return Optional.of(new Waiting(preempting(chosen), 0));
        }
      }
      return Optional.empty();
    }

    /**
     * Keeps the suspended jobs whose lent CPUs the preemptor's job would be placed on from resuming
     * in this cycle (and no others: a job waiting elsewhere must not hold up their resumption).
     */
    private void claimLentCpusUsed(
        Job job, long end, List<List<NodeAllocation>> base, List<PreemptableJob> chosen) {
      List<List<NodeAllocation>> released = new ArrayList<>(base);
      chosen.forEach(p -> released.add(p.allocations()));
      Placement.place(job, availability.withReleased(end, released)).ifPresent(this::claimLenders);
    }

    /** Claims the suspended jobs that lend a CPU of {@code placed}. */
    private void claimLenders(List<NodeAllocation> placed) {
      Map<String, Set<Integer>> taken = new HashMap<>();
      for (NodeAllocation a : placed) {
        taken.computeIfAbsent(a.getNode(), k -> new HashSet<>()).addAll(a.getCpusList());
      }
      for (SuspendedJob j : suspended()) {
        for (NodeAllocation a : j.idleCpus()) {
          Set<Integer> cpus = taken.get(a.getNode());
          if (cpus != null && a.getCpusList().stream().anyMatch(cpus::contains)) {
            claimed.add(j.jobId());
          }
        }
      }
    }

    /** "preempting job 7.srv (suspended); it starts when ...", by how the victims are preempted. */
    private static String preempting(List<PreemptableJob> chosen) {
      List<String> requeued = new ArrayList<>();
      List<String> suspended = new ArrayList<>();
      for (PreemptableJob v : chosen) {
        (v.suspend() ? suspended : requeued).add(v.jobId());
      }
      List<String> parts = new ArrayList<>();
      if (!requeued.isEmpty()) {
        parts.add(jobs(requeued) + " (requeued)");
      }
      if (!suspended.isEmpty()) {
        parts.add(jobs(suspended) + " (suspended)");
      }
      return "preempting "
          + String.join(" and ", parts)
          + (requeued.isEmpty()
              ? "; it starts when they are suspended"
              : "; it starts when they have ended");
    }

    private static String jobs(List<String> ids) {
      return (ids.size() == 1 ? "job " : "jobs ") + shortList(ids);
    }

    /** Leaves out of {@code chosen} every job the preemptor does not need, the oldest first. */
    private void fewest(
        Job job, long end, List<List<NodeAllocation>> ending, List<PreemptableJob> chosen) {
      for (int i = chosen.size() - 1; i >= 0; i--) {
        PreemptableJob left = chosen.remove(i);
        if (!fitsWith(job, end, ending, chosen)) {
          chosen.add(i, left);
        }
      }
    }

    private boolean fitsWith(
        Job job, long end, List<List<NodeAllocation>> ending, List<PreemptableJob> chosen) {
      List<List<NodeAllocation>> released = new ArrayList<>(ending);
      chosen.forEach(p -> released.add(p.allocations()));
      return Placement.place(job, availability.withReleased(end, released)).isPresent();
    }

    /** Starts a job of a reservation on its nodes if its window is open and they have room. */
    private void considerInside(Job job, AdvanceReservation r) {
      if (now < r.start()) {
        waiting.put(
            job.getId(), new Waiting("its reservation " + r.id() + " has not begun", r.start()));
        return;
      }
      if (now >= r.end()) {
        waiting.put(job.getId(), new Waiting("its reservation " + r.id() + " has ended", 0));
        return;
      }
      Map<RunLimit, Integer> limits = view.limits(job);
      Optional<String> limit = atALimit(limits);
      if (limit.isPresent()) {
        waiting.put(job.getId(), new Waiting(limit.get(), 0));
        return;
      }
      Optional<List<NodeAllocation>> placed = Placement.place(job, availability.inside(r));
      if (placed.isEmpty()) {
        waiting.put(
            job.getId(), new Waiting("not enough free resources in its reservation " + r.id(), 0));
        return;
      }
      decisions.add(new RunDecision(job.getId(), placed.get()));
      start(placed.get(), Math.min(RunningJob.endOf(now, RunningJob.duration(job)), r.end()));
      limits.keySet().forEach(key -> running.merge(key, 1, Integer::sum));
    }

    private void start(List<NodeAllocation> allocations, long end) {
      int[] before = new int[allocations.size()];
      for (int i = 0; i < allocations.size(); i++) {
        before[i] = availability.freeNow(allocations.get(i).getNode());
      }
      availability.start(allocations, end);
      for (int i = 0; i < allocations.size(); i++) {
        String node = allocations.get(i).getNode();
        if (!availability.heldNow(node)) {
          room.changed(before[i], availability.freeNow(node));
        }
      }
    }

    private Waiting blocked(Job job, Shape shape, long duration, long end) {
      String why = shape == null ? "not enough free resources" : whyNotNow(job, shape, end);
      if (heldStarts < settings.backfillDepth() && failedSearches < MAX_FAILED_SEARCHES) {
        Optional<Availability.Reservation> r = availability.earliest(job, duration);
        if (r.isPresent()) {
          heldStarts++;
          availability.reserve(r.get(), duration);
          return new Waiting(why + "; its start is reserved", r.get().start());
        }
        failedSearches++;
        return new Waiting(
            why
                + ", and no start can be planned: what it needs is held by jobs without a"
                + " walltime, or on nodes that are down or offline",
            0);
      }
      return new Waiting(why, 0);
    }

    /**
     * Why a job that would fit on what is free now does not start: it would still run when an
     * administrator's reservation begins on the nodes it would get, or it would delay a start this
     * plan reserved; otherwise there is simply not enough free.
     */
    private String whyNotNow(Job job, Shape shape, long end) {
      if (!availability.anyReserved()
          || !fitsNow.computeIfAbsent(
              shape, k -> Placement.place(job, availability.now()).isPresent())) {
        return "not enough free resources";
      }
      ShapeWindows outside = new ShapeWindows(shape, availability.windowsBefore(end));
      if (!fitsOutsideWindows.computeIfAbsent(
          outside, k -> Placement.place(job, availability.outsideWindows(end)).isPresent())) {
        List<String> met =
            reservationOfQueue.values().stream()
                .filter(r -> r.meets(now, end))
                .map(AdvanceReservation::id)
                .sorted()
                .toList();
        return (end == RunningJob.UNKNOWN_END
                ? "it has no walltime, so it would still run when "
                : "it would still run when ")
            + (met.size() == 1
                ? "reservation " + met.get(0) + " begins"
                : "reservations " + shortList(met) + " begin")
            + " on the nodes it could use";
      }
      return "it would delay the reserved start of a job of higher priority";
    }

    /** Says which limit starting the job would pass (counting this cycle's starts), if one. */
    private Optional<String> atALimit(Map<RunLimit, Integer> limits) {
      for (Map.Entry<RunLimit, Integer> limit : limits.entrySet()) {
        int count = running.computeIfAbsent(limit.getKey(), view::running);
        if (count >= limit.getValue()) {
          return Optional.of(limit.getKey().describe() + " (" + limit.getValue() + ") is reached");
        }
      }
      return Optional.empty();
    }
  }

  /** What placement reads of a job: its request without the walltime, and -n. */
  private record Shape(ResourceRequest resources, boolean exclusive, String hostingNeeds) {
    static Shape of(Job job) {
      ResourceRequest r = job.getResources();
      if (r.getWalltime() != 0 || r.containsValues("walltime")) {
        r = r.toBuilder().clearWalltime().removeValues("walltime").build();
      }
      return new Shape(r, job.getNodeExclusive(), Hosting.needs(job));
    }
  }

  private record ShapeWindows(Shape shape, int windowsBefore) {}

  private static String shortList(List<String> names) {
    return names.size() <= 3
        ? String.join(", ", names)
        : String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
  }

  /**
   * The free CPUs of the usable nodes outside open reservation windows (those are only for the
   * reservations' own jobs): in all, and the most on one node. A job asking for more on one node
   * than any has free, or for more than are free in all, cannot be placed, which is known without
   * trying it on every node (on a full cluster with a long queue that is most of the jobs, and
   * trying each on each node is jobs times nodes). Kept up to date as the cycle starts jobs, by how
   * many usable nodes have each number of CPUs free.
   */
  private static final class Room {
    private final int[] nodesWithFree;
    private int free;
    private int mostOnOneNode;

    Room(List<NodeCapacity> nodes, Predicate<String> heldNow) {
      int most = 0;
      for (NodeCapacity n : nodes) {
        most = Math.max(most, n.np());
      }
      nodesWithFree = new int[most + 1];
      for (NodeCapacity n : nodes) {
        if (n.usable() && !heldNow.test(n.name())) {
          int f = Math.min(n.freeCpus().size(), most);
          nodesWithFree[f]++;
          free += f;
          mostOnOneNode = Math.max(mostOnOneNode, f);
        }
      }
    }

    int free() {
      return free;
    }

    /** A usable node's free CPUs went from {@code before} to {@code after}. */
    void changed(int before, int after) {
      nodesWithFree[before]--;
      nodesWithFree[after]++;
      free += after - before;
      while (mostOnOneNode > 0 && nodesWithFree[mostOnOneNode] == 0) {
        mostOnOneNode--;
      }
    }

    boolean mayHold(Job job) {
      for (NodeGroup g : Placement.groups(job.getResources())) {
        if (g.getCount() > 0 && g.getPpn() > mostOnOneNode) {
          return false;
        }
      }
      return Placement.cpus(job.getResources()) <= free;
    }
  }
}
