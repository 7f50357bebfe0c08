package dev.berth.daemon;

import dev.berth.core.Budget;
import dev.berth.core.Sizes;
import dev.berth.mom.MomBudgets;
import dev.berth.mom.output.OutputPort;
import dev.berth.security.cluster.ClusterPort;
import dev.berth.server.BerthServer;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.relay.RelayPort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a daemon's inputs may make it hold, all at their worst at once (docs/security.md,
 * "Budgets"): the budgets of the inputs it serves, added up. At start a daemon whose inputs could
 * take more than its heap refuses to run, naming the largest, so that no limit a site raises can
 * let its users or peers exhaust the heap. The defaults, which grow with the heap, leave a part of
 * it for what no input bounds by itself: nodes, queues, the scheduler's and the journal's work.
 */
final class Budgets {
  private static final Logger log = LoggerFactory.getLogger(Budgets.class);

  private final String daemon;
  private final List<Budget> budgets;

  Budgets(String daemon, List<Budget> budgets) {
    this.daemon = daemon;
    this.budgets = List.copyOf(budgets);
  }

  /**
   * A server: its client socket, the replies it makes, its jobs, its cluster and metrics ports, the
   * relay port where it serves one, and {@code moms} embedded moms ({@code berth up}).
   */
  static Budgets server(
      ClientLimits client, ClusterPort.Limits cluster, boolean relayPort, int moms) {
    List<Budget> b = new ArrayList<>();
    b.add(client.budget());
    b.add(BerthServer.replyBudget(client));
    b.add(client.jobsBudget());
    b.add(cluster.budget());
    b.add(MetricsEndpoint.budget());
    if (relayPort) {
      b.add(RelayPort.budget(client));
    }
    for (int i = 0; i < moms; i++) {
      b.addAll(MomBudgets.perMom());
    }
    if (moms > 0) {
      b.addAll(MomBudgets.perJvm());
    }
    return new Budgets(
        moms == 0 ? "berth serve" : "berth up (" + moms + (moms == 1 ? " mom)" : " moms)"), b);
  }

  /** A mom of its own ({@code berth mom}). */
  static Budgets mom(ClusterPort.Limits cluster) {
    List<Budget> b = new ArrayList<>(MomBudgets.perMom());
    b.addAll(MomBudgets.perJvm());
    b.add(cluster.budget());
    b.add(MetricsEndpoint.budget());
    return new Budgets("berth mom", b);
  }

  /** A submit host's relay ({@code berth relay}): its client socket and its output port. */
  static Budgets relay(ClientLimits client, boolean outputPort) {
    List<Budget> b = new ArrayList<>();
    b.add(client.budget());
    if (outputPort) {
      b.add(OutputPort.budget());
    }
    return new Budgets("berth relay", b);
  }

  List<Budget> budgets() {
    return budgets;
  }

  long heapBytes() {
    return budgets.stream().mapToLong(Budget::heapBytes).sum();
  }

  int threads() {
    return budgets.stream().mapToInt(Budget::threads).sum();
  }

  /**
   * Refuses a daemon whose inputs could take more than its heap of {@code heap} bytes, naming the
   * largest of them and what lowers them.
   */
  void check(long heap) {
    if (heapBytes() <= heap) {
      return;
    }
    List<Budget> largest =
        budgets.stream().sorted(Comparator.comparingLong(Budget::heapBytes).reversed()).toList();
    StringBuilder why = new StringBuilder();
    for (Budget b : largest.subList(0, Math.min(3, largest.size()))) {
      why.append("; ")
          .append(b.input())
          .append(": ")
          .append(Sizes.readable(b.heapBytes()))
          .append(" (")
          .append(b.limits())
          .append(')');
    }
    throw new IllegalStateException(
        daemon
            + ": what its inputs may hold at their worst, "
            + Sizes.readable(heapBytes())
            + ", is more than its heap of "
            + Sizes.readable(heap)
            + ": give it a larger heap (BERTH_HEAP) or lower the limits (BERTH_CLIENT_LIMITS,"
            + " berth.cluster-port.connections)"
            + why);
  }

  /**
   * Refuses to start a daemon whose inputs could take more than this JVM's heap; otherwise logs
   * what they may take.
   */
  void checkThisDaemon() {
    long heap = Runtime.getRuntime().maxMemory();
    check(heap);
    log.info(
        "{}: its inputs may hold {} of its heap of {} at their worst (docs/security.md, Budgets)",
        daemon,
        Sizes.readable(heapBytes()),
        Sizes.readable(heap));
  }

  /** The table of docs/security.md for a heap of {@code heap} bytes. */
  String table(long heap) {
    StringBuilder t = new StringBuilder();
    t.append("| input | limits | heap at worst | threads |\n|---|---|---|---|\n");
    for (Budget b : budgets) {
      t.append("| ")
          .append(b.input())
          .append(" | ")
          .append(b.limits())
          .append(" | ")
          .append(Sizes.readable(b.heapBytes()))
          .append(" | ")
          .append(b.threads())
          .append(" |\n");
    }
    t.append("| **")
        .append(daemon)
        .append(", all inputs** | heap ")
        .append(Sizes.readable(heap))
        .append(" | **")
        .append(Sizes.readable(heapBytes()))
        .append("** (")
        .append(Math.round(100.0 * heapBytes() / heap))
        .append("%) | ")
        .append(threads())
        .append(" |\n");
    return t.toString();
  }
}
