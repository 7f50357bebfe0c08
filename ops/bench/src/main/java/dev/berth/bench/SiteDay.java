package dev.berth.bench;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationCreated;
import dev.berth.scheduler.Plan;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.Context;
import dev.berth.server.command.Decider;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * A busy site at one moment, for a scheduling cycle to plan on: nodes of {@link
 * SchedulerCycleBench#CPUS} CPUs running jobs of every width (one CPU to whole nodes, a few over
 * many nodes) that started within the last day and asked for up to a day, about one CPU in sixteen
 * free; a long queue of jobs from one CPU to 64 nodes, asking for ten minutes to a day, submitted
 * over the last week. Priority weighs age and size, with EASY backfill (backfill_depth 1). Seeded,
 * so every run plans the same state.
 */
final class SiteDay {
  private static final long DAY = 24 * 3600;

  private SiteDay() {}

  static ClusterState state(int nodes, int queued, long now) {
    return build(nodes, queued, now).state();
  }

  static BenchState build(int nodes, int queued, long now) {
    Random random = new Random(42);
    BenchState b = new BenchState();
    b.server(ServerAttributeNames.PRIORITY_WEIGHT_AGE, "10000");
    b.server(ServerAttributeNames.PRIORITY_MAX_AGE, Long.toString(7 * DAY));
    b.server(ServerAttributeNames.PRIORITY_WEIGHT_JOB_SIZE, "2000");
    int cpus = SchedulerCycleBench.CPUS;
    for (int n = 0; n < nodes; n++) {
      b.node("n" + n, cpus);
    }
    int n = 0;
    while (n < nodes) {
      long walltime = 600 + random.nextInt((int) DAY);
      long start = now - random.nextInt((int) Math.min(walltime, DAY));
      if (random.nextInt(50) == 0 && n + 16 <= nodes) {
        int width = 2 + random.nextInt(15);
        List<NodeAllocation> all = new ArrayList<>();
        for (int i = 0; i < width; i++) {
          all.add(BenchState.cpus("n" + (n + i), 0, cpus));
        }
        b.run(b.submit(width, cpus, walltime, start - 60), all, start);
        n += width;
        continue;
      }
      int used = 0;
      while (used < cpus - 2) {
        int ppn = Math.min(cpus - used, 1 + random.nextInt(random.nextBoolean() ? 4 : cpus));
        long w = 600 + random.nextInt((int) DAY);
        long s = now - random.nextInt((int) Math.min(w, DAY));
        b.run(b.submit(1, ppn, w, s - 60), List.of(BenchState.cpus("n" + n, used, used + ppn)), s);
        used += ppn;
      }
      n++;
    }
    for (int i = 0; i < queued; i++) {
      int kind = random.nextInt(10);
      int count = kind < 9 ? 1 : 2 + random.nextInt(63);
      int ppn = kind < 6 ? 1 + random.nextInt(4) : cpus;
      b.submit(count, ppn, 600 + random.nextInt((int) DAY), now - random.nextInt((int) (7 * DAY)));
    }
    return b;
  }

  /**
   * Checks a plan of the state as the server would take it: every decision passes the server's
   * re-check, and the first job that cannot start has a reserved start. Returns how many starts.
   */
  /** The state with every node reserved over [start, end), as pbs_rsub records it. */
  static ClusterState withMaintenance(ClusterState day, int nodes, long start, long end) {
    long number = day.nextJobNumber();
    Reservation r =
        Reservation.newBuilder()
            .setId("R" + number + ".bench")
            .setNumber(number)
            .setQueue("R" + number)
            .setOwner("root@head")
            .setStart(start)
            .setEnd(end)
            .addAllNodes(IntStream.range(0, nodes).mapToObj(n -> "n" + n).toList())
            .build();
    ClusterState s = day;
    for (Event.Builder e :
        List.of(
            Event.newBuilder()
                .setQueueCreated(
                    QueueCreated.newBuilder()
                        .setQueue(
                            Queue.newBuilder()
                                .setName(r.getQueue())
                                .putAttributes("enabled", "True")
                                .putAttributes("started", "True"))),
            Event.newBuilder()
                .setReservationCreated(ReservationCreated.newBuilder().setReservation(r)))) {
      s = StateMachine.apply(s, e.setSeq(s.lastSeq() + 1).setTime(1_000).build());
    }
    return s;
  }

  static int check(ClusterState state, Plan plan, long now) {
    List<RunDecision> decisions = plan.decisions();
    List<Event> dispatched =
        Decider.decide(state, new Decider.Schedule(decisions), new Context(now * 1000, "bench"))
            .events();
    if (decisions.isEmpty() || dispatched.size() != decisions.size()) {
      throw new IllegalStateException(
          "planned " + decisions.size() + " starts, the server took " + dispatched.size());
    }
    long reserved = plan.waiting().values().stream().filter(w -> w.estimatedStart() > 0).count();
    if (reserved != 1) {
      throw new IllegalStateException("expected one reserved start, the plan holds " + reserved);
    }
    return decisions.size();
  }
}
