package dev.berth.scheduler;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * What each node has free from now on, as one plan sees it: what is free now (less what the plan
 * starts), and the changes the plan knows of later — a running job's end gives back what it holds
 * (at its walltime), a reserved start takes what it needs and gives it back at its walltime. This
 * is the node-space map of backfill schedulers (Slurm's, Maui's): a job may start at a moment only
 * if every node it would use has room for it over its whole walltime from then.
 *
 * <p>Administrators' reservations hold whole nodes over their windows: a node has nothing free for
 * a plan at any moment of a window on it, and gains it back at the window's end. The jobs of a
 * reservation are placed on its nodes as they are now ({@link #inside}), never through this map.
 *
 * <p>Running jobs' ends are read only once a reservation is first looked for: a cycle that starts
 * what fits and reserves nothing never needs them.
 */
final class Availability {
  /** A change of what a node has free, from {@code at} on. */
  private record Change(long at, int cpus, long mem, int gpus) {}

  /** Gains before losses at the same moment, so a reserved start on a job's end is seamless. */
  private static final Comparator<Change> ORDER =
      Comparator.comparingLong(Change::at).thenComparing(c -> c.cpus() < 0);

  /**
   * At most this many moments are tried, one by one, for one reservation (each try places the job
   * on every node as it will be then): a bound on a cycle's work, as Slurm's bf_window is.
   */
  static final int MAX_TRIES = 64;

  /** A start the plan holds for a job: when, and on what. */
  record Reservation(long start, List<NodeAllocation> allocations) {}

  private final long now;
  private final List<NodeCapacity> current;
  private final Map<String, Integer> position = new HashMap<>();
  private final List<List<Change>> changes;
  private final BitSet unsorted = new BitSet();
  private final BitSet reserved = new BitSet();
  private final Map<Integer, List<AdvanceReservation>> windows = new HashMap<>();

  /**
   * What is free from now until a moment, by how many moments after now at which some node has less
   * free (a window begins, a reserved start) come before it: jobs of the same walltime, or of
   * walltimes between the same two such moments, see the same, so a long queue does not work it out
   * again for every job. A start brings the nodes it used up to date; a reserved start forgets it.
   */
  private final Map<Integer, Least> fromNow = new HashMap<>();

  /** What is free now outside windows, kept the same way, by how many windows begin before. */
  private final Map<Integer, Least> outside = new HashMap<>();

  /**
   * The least of what each node has free over [now, to), by position; null where it is what the
   * node has now.
   */
  private record Least(long to, NodeCapacity[] nodes) {}

  private long[] lessLater;
  private long[] windowStarts;
  private final Supplier<List<RunningJob>> running;
  private final List<RunningJob> startedHere = new ArrayList<>();
  private boolean endsKnown;

  Availability(
      long now,
      List<NodeCapacity> nodes,
      List<AdvanceReservation> reservations,
      Supplier<List<RunningJob>> running) {
    this.now = now;
    this.current = new ArrayList<>(nodes);
    this.changes = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      position.put(nodes.get(i).name(), i);
      changes.add(null);
    }
    for (AdvanceReservation r : reservations) {
      if (r.end() > now) {
        for (String node : r.nodes()) {
          Integer i = position.get(node);
          if (i != null) {
            windows.computeIfAbsent(i, k -> new ArrayList<>(1)).add(r);
          }
        }
      }
    }
    this.running = running;
  }

  /** What is free now, less what this plan has started. */
  List<NodeCapacity> now() {
    return current;
  }

  /** How many CPUs {@code node} has free now, less what this plan has started. */
  int freeNow(String node) {
    return freeCpusNow(node).size();
  }

  /** The CPUs {@code node} has free now, less what this plan has started. */
  List<Integer> freeCpusNow(String node) {
    return current.get(position.get(node)).freeCpus();
  }

  /** Whether a reservation's window is open on {@code node} now: it is only for that one's jobs. */
  boolean heldNow(String node) {
    return windowMeets(position.get(node), now, now + 1);
  }

  /** The reservation's nodes as they are now (less what this plan has started), for its jobs. */
  List<NodeCapacity> inside(AdvanceReservation r) {
    List<NodeCapacity> result = new ArrayList<>(r.nodes().size());
    for (String node : r.nodes()) {
      Integer i = position.get(node);
      if (i != null) {
        result.add(current.get(i));
      }
    }
    return result;
  }

  /**
   * What each node has free from now until {@code to} if what the {@code released} allocations hold
   * were free now too: a preemptor's view of the running jobs it could requeue. Nothing comes back
   * on a node in a reservation's window before then.
   */
  List<NodeCapacity> withReleased(long to, Collection<List<NodeAllocation>> released) {
    List<NodeCapacity> during = during(now, to);
    NodeCapacity[] more = new NodeCapacity[current.size()];
    for (List<NodeAllocation> allocations : released) {
      for (NodeAllocation a : allocations) {
        Integer i = position.get(a.getNode());
        if (i != null && !windowMeets(i, now, to)) {
          more[i] = plus(more[i] != null ? more[i] : during.get(i), a);
        }
      }
    }
    return readThrough(more, during);
  }

  /**
   * What is free now on nodes without a reservation's window from now until {@code to}: what a job
   * would have if only the administrators' reservations, not the plan's, stood in its way.
   */
  List<NodeCapacity> outsideWindows(long to) {
    if (windows.isEmpty()) {
      return current;
    }
    return readThrough(
        outside.computeIfAbsent(windowsBefore(to), k -> withoutWindows(to)).nodes(), current);
  }

  private Least withoutWindows(long to) {
    NodeCapacity[] nodes = new NodeCapacity[current.size()];
    for (int i : windows.keySet()) {
      if (windowMeets(i, now, to)) {
        nodes[i] = nothingFree(current.get(i));
      }
    }
    return new Least(to, nodes);
  }

  /** How many windows begin before {@code to} (what is free outside them differs by that only). */
  int windowsBefore(long to) {
    return windows.isEmpty() ? 0 : below(windowStarts(), to);
  }

  /** Records a start now that holds its allocations until {@code end}. */
  void start(List<NodeAllocation> allocations, long end) {
    for (NodeAllocation a : allocations) {
      int i = position.get(a.getNode());
      current.set(i, minus(current.get(i), a));
      for (Least l : fromNow.values()) {
        if (l.nodes()[i] != null) {
          l.nodes()[i] = least(i, now, l.to());
        }
      }
    }
    RunningJob started = new RunningJob("", end, allocations);
    if (endsKnown) {
      ending(started);
    } else {
      startedHere.add(started);
    }
  }

  /**
   * What each node has free through all of [{@code from}, {@code to}): the least it has at any
   * moment of it. From now, the CPUs offered are ones free now; later, CPU ids mean nothing yet and
   * the lowest are offered.
   */
  List<NodeCapacity> during(long from, long to) {
    if (from == now && reserved.isEmpty() && windows.isEmpty()) {
      return current;
    }
    if (from == now) {
      return readThrough(
          fromNow.computeIfAbsent(below(lessLater(), to), k -> duringFromNow(to)).nodes(), current);
    }
    List<NodeCapacity> result = new ArrayList<>(current);
    for (int i = 0; i < current.size(); i++) {
      if (changes.get(i) != null || windows.containsKey(i)) {
        result.set(i, least(i, from, to));
      }
    }
    return result;
  }

  /** Only reserved nodes and those with a window ever have less later: the rest is read through. */
  private Least duringFromNow(long to) {
    NodeCapacity[] least = new NodeCapacity[current.size()];
    for (int i = reserved.nextSetBit(0); i >= 0; i = reserved.nextSetBit(i + 1)) {
      least[i] = least(i, now, to);
    }
    for (int i : windows.keySet()) {
      if (least[i] == null) {
        least[i] = least(i, now, to);
      }
    }
    return new Least(to, least);
  }

  /** {@code base}, but for the nodes {@code instead} has (by position). */
  private static List<NodeCapacity> readThrough(NodeCapacity[] instead, List<NodeCapacity> base) {
    return new AbstractList<>() {
      @Override
      public NodeCapacity get(int i) {
        NodeCapacity n = instead[i];
        return n != null ? n : base.get(i);
      }

      @Override
      public int size() {
        return base.size();
      }
    };
  }

  /**
   * Window starts and the moments reserved nodes have less (reserved starts: gains never lower the
   * least from now), in order, distinct.
   */
  private long[] lessLater() {
    if (lessLater == null) {
      TreeSet<Long> times = new TreeSet<>();
      for (long t : windowStarts()) {
        times.add(t);
      }
      for (int i = reserved.nextSetBit(0); i >= 0; i = reserved.nextSetBit(i + 1)) {
        for (Change c : changes.get(i)) {
          if (c.at() > now && (c.cpus() < 0 || c.mem() < 0 || c.gpus() < 0)) {
            times.add(c.at());
          }
        }
      }
      lessLater = times.stream().mapToLong(Long::longValue).toArray();
    }
    return lessLater;
  }

  private long[] windowStarts() {
    if (windowStarts == null) {
      TreeSet<Long> times = new TreeSet<>();
      windows.values().forEach(rs -> rs.forEach(r -> times.add(Math.max(r.start(), now))));
      windowStarts = times.stream().mapToLong(Long::longValue).toArray();
    }
    return windowStarts;
  }

  /** How many of the ordered {@code times} come before {@code t}. */
  private static int below(long[] times, long t) {
    int at = java.util.Arrays.binarySearch(times, t);
    return at >= 0 ? at : -at - 1;
  }

  private void planChanged() {
    fromNow.clear();
    outside.clear();
    lessLater = null;
  }

  /**
   * The earliest start, now or when a running job or a reservation ends, at which {@code job} has
   * room for {@code duration} seconds ({@link RunningJob#UNKNOWN_END} when it has no walltime).
   * Empty when no known end frees enough: what it needs is held by jobs without a walltime, or is
   * not usable.
   */
  Optional<Reservation> earliest(Job job, long duration) {
    knowEnds();
    long[] times = startTimes();
    if (reserved.isEmpty() && windows.isEmpty()) {
      // Without reservations every node only gains room as time passes: whether the job fits is
      // monotone in the start, so the first moment it fits is found by bisection.
      int lo = 0;
      int hi = times.length;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (placeAt(job, times[mid], duration).isPresent()) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      if (lo < times.length) {
        return reservationAt(job, times[lo], duration);
      }
      if (Placement.groups(job.getResources()).size() == 1) {
        return Optional.empty();
      }
      // first fit is not quite monotone for jobs of several node groups (more room can lead a
      // group to take the only node another needs): try the moments one by one
    }
    long needed = Placement.cpus(job.getResources());
    long[] freeAt = usableCpusAt(times);
    int tries = 0;
    for (int t = 0; t < times.length && tries < MAX_TRIES; t++) {
      if (freeAt[t] >= needed) {
        tries++;
        Optional<Reservation> r = reservationAt(job, times[t], duration);
        if (r.isPresent()) {
          return r;
        }
      }
    }
    // The bound above does not see windows, so many ends before a maintenance window can use up
    // the tries: the windows' ends, when nodes come back whole, are tried too (the start found may
    // then be later than the earliest, which delays no one).
    long[] ends =
        windows.values().stream()
            .flatMap(List::stream)
            .mapToLong(AdvanceReservation::end)
            .distinct()
            .sorted()
            .limit(MAX_TRIES)
            .toArray();
    for (long end : ends) {
      Optional<Reservation> r = reservationAt(job, end, duration);
      if (r.isPresent()) {
        return r;
      }
    }
    return Optional.empty();
  }

  /** Holds what the reservation takes from its start for {@code duration} seconds. */
  void reserve(Reservation r, long duration) {
    knowEnds();
    planChanged();
    long end = RunningJob.endOf(r.start(), duration);
    for (NodeAllocation a : r.allocations()) {
      int i = position.get(a.getNode());
      add(i, new Change(r.start(), -a.getCpusCount(), -a.getMem(), -a.getGpus()));
      if (end != RunningJob.UNKNOWN_END) {
        add(i, new Change(end, a.getCpusCount(), a.getMem(), a.getGpus()));
      }
      reserved.set(i);
    }
  }

  /** Whether this plan holds a start for a job, or a reservation's window lies ahead somewhere. */
  boolean anyReserved() {
    return !reserved.isEmpty() || !windows.isEmpty();
  }

  private Optional<Reservation> reservationAt(Job job, long start, long duration) {
    return placeAt(job, start, duration).map(allocations -> new Reservation(start, allocations));
  }

  private Optional<List<NodeAllocation>> placeAt(Job job, long start, long duration) {
    return Placement.place(job, during(start, RunningJob.endOf(start, duration)));
  }

  /** Now, then every later moment at which some node gains room, in order. */
  private long[] startTimes() {
    TreeSet<Long> times = new TreeSet<>();
    times.add(now);
    windows.values().forEach(rs -> rs.forEach(r -> times.add(r.end())));
    for (List<Change> node : changes) {
      if (node != null) {
        for (Change c : node) {
          if (c.cpus() > 0 || c.mem() > 0 || c.gpus() > 0) {
            times.add(c.at());
          }
        }
      }
    }
    return times.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * The CPUs free on usable nodes at each of {@code times} (a bound: not over a duration, and
   * reservations' windows left out).
   */
  private long[] usableCpusAt(long[] times) {
    long base = 0;
    List<Change> all = new ArrayList<>();
    for (int i = 0; i < current.size(); i++) {
      if (current.get(i).usable()) {
        base += current.get(i).freeCpus().size();
        if (changes.get(i) != null) {
          all.addAll(changes.get(i));
        }
      }
    }
    all.sort(ORDER);
    long[] result = new long[times.length];
    int c = 0;
    for (int t = 0; t < times.length; t++) {
      while (c < all.size() && all.get(c).at() <= times[t]) {
        base += all.get(c++).cpus();
      }
      result[t] = base;
    }
    return result;
  }

  /** Node {@code i} with the least of each resource it has free over [from, to). */
  private NodeCapacity least(int i, long from, long to) {
    NodeCapacity n = current.get(i);
    if (windowMeets(i, from, to)) {
      return nothingFree(n);
    }
    List<Change> node = sorted(i);
    int cpus = n.freeCpus().size();
    long mem = n.memFree();
    int gpus = n.gpusFree();
    int c = 0;
    while (c < node.size() && node.get(c).at() <= from) {
      Change ch = node.get(c++);
      cpus += ch.cpus();
      mem += ch.mem();
      gpus += ch.gpus();
    }
    int leastCpus = cpus;
    long leastMem = mem;
    int leastGpus = gpus;
    while (c < node.size() && node.get(c).at() < to) {
      Change ch = node.get(c++);
      cpus += ch.cpus();
      mem += ch.mem();
      gpus += ch.gpus();
      leastCpus = Math.min(leastCpus, cpus);
      leastMem = Math.min(leastMem, mem);
      leastGpus = Math.min(leastGpus, gpus);
    }
    int k = Math.max(0, Math.min(leastCpus, n.np()));
    List<Integer> offered =
        from == now
            ? n.freeCpus().subList(0, Math.min(k, n.freeCpus().size()))
            : n.cpuIds().subList(0, k);
    return new NodeCapacity(
        n.name(),
        n.properties(),
        n.cpuIds(),
        offered,
        n.physmem(),
        leastMem,
        n.gpus(),
        Math.max(0, leastGpus),
        n.usable(),
        k == n.np() && leastGpus >= n.gpus(),
        n.hosting());
  }

  private boolean windowMeets(int i, long from, long to) {
    List<AdvanceReservation> on = windows.get(i);
    if (on != null) {
      for (AdvanceReservation r : on) {
        if (r.meets(from, to)) {
          return true;
        }
      }
    }
    return false;
  }

  private static NodeCapacity nothingFree(NodeCapacity n) {
    return new NodeCapacity(
        n.name(),
        n.properties(),
        n.cpuIds(),
        List.of(),
        n.physmem(),
        0,
        n.gpus(),
        0,
        n.usable(),
        false,
        n.hosting());
  }

  private List<Change> sorted(int i) {
    List<Change> node = changes.get(i);
    if (node == null) {
      return List.of();
    }
    if (unsorted.get(i)) {
      node.sort(ORDER);
      unsorted.clear(i);
    }
    return node;
  }

  private void knowEnds() {
    if (endsKnown) {
      return;
    }
    endsKnown = true;
    planChanged();
    running.get().forEach(this::ending);
    startedHere.forEach(this::ending);
    startedHere.clear();
  }

  /** What a job gives back at its end (no sooner than a second from now, if it overran). */
  private void ending(RunningJob job) {
    if (job.end() == RunningJob.UNKNOWN_END) {
      return;
    }
    long at = Math.max(job.end(), now + 1);
    Set<String> seen = new HashSet<>();
    for (NodeAllocation a : job.allocations()) {
      Integer i = position.get(a.getNode());
      if (i != null && seen.add(a.getNode())) {
        add(i, new Change(at, a.getCpusCount(), a.getMem(), a.getGpus()));
      }
    }
  }

  private void add(int i, Change c) {
    if (changes.get(i) == null) {
      changes.set(i, new ArrayList<>(2));
    }
    changes.get(i).add(c);
    unsorted.set(i);
  }

  private static NodeCapacity plus(NodeCapacity n, NodeAllocation a) {
    TreeSet<Integer> free = new TreeSet<>(n.freeCpus());
    for (int cpu : a.getCpusList()) {
      if (n.cpuIds().contains(cpu)) {
        free.add(cpu);
      }
    }
    return new NodeCapacity(
        n.name(),
        n.properties(),
        n.cpuIds(),
        List.copyOf(free),
        n.physmem(),
        n.physmem() > 0 ? Math.min(n.physmem(), n.memFree() + a.getMem()) : 0,
        n.gpus(),
        Math.min(n.gpus(), n.gpusFree() + a.getGpus()),
        n.usable(),
        free.size() == n.np() && n.gpusFree() + a.getGpus() >= n.gpus(),
        n.hosting());
  }

  private static NodeCapacity minus(NodeCapacity n, NodeAllocation a) {
    Set<Integer> used = new HashSet<>(a.getCpusList());
    List<Integer> free = n.freeCpus().stream().filter(c -> !used.contains(c)).toList();
    return new NodeCapacity(
        n.name(),
        n.properties(),
        n.cpuIds(),
        free,
        n.physmem(),
        n.memFree() - a.getMem(),
        n.gpus(),
        n.gpusFree() - a.getGpus(),
        n.usable(),
        false,
        n.hosting());
  }
}
