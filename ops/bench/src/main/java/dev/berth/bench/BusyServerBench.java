package dev.berth.bench;

import dev.berth.client.BerthClient;
import dev.berth.proto.Attribute;
import dev.berth.proto.Event;
import dev.berth.proto.Manage;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether the server keeps answering while its scheduler works: a real server process recovers a
 * site's day on 10,000 nodes of 32 CPUs with 100,000 jobs queued (SiteDay: priority by age and
 * size, EASY backfill, cycles of a few hundred milliseconds), written into its journal as the
 * events that make it. For a while one client submits jobs one after another (each makes the server
 * ask for a cycle, so cycles run back to back) and another asks for one job's status (qstat JOBID);
 * the same with scheduling off. Prints both clients' latencies and the server's CPU in each, which
 * shows the cycles ran. The nodes have no moms: they stay up for the node_check_rate the
 * measurement takes less than.
 */
final class BusyServerBench {
  private static final int NODES = 10_000;
  private static final int QUEUED = 100_000;
  private static final long SECONDS = 20;

  private BusyServerBench() {}

  static void run(Path root) throws Exception {
    long now = System.currentTimeMillis() / 1000;
    BenchState day = SiteDay.build(NODES, QUEUED, now);
    day.server("acl_roots", "root");
    String watched = day.state().eligible().values().iterator().next().getId();
    try (BenchServer server = new BenchServer(root, Trust.TLS)) {
      journal(server.home.resolve("journal"), day);
      long ready = server.start();
      System.out.printf(
          "%nthe server with %,d nodes and %,d jobs queued: ready in %d ms; %s%n",
          NODES, QUEUED, ready, server.recoveryLine());
      System.out.println(
          "scheduling   submissions  p50 / p90 / p99 / max ms    qstat JOBID  p50 / p90 / p99"
              + " / max ms   server CPU");
      for (boolean scheduling : new boolean[] {true, false}) {
        set(server, "scheduling", scheduling ? "True" : "False");
        double cpu = CpuTime.millis(server.pid());
        Phase p = phase(server, watched);
        cpu = CpuTime.millis(server.pid()) - cpu;
        System.out.printf(
            "%-10s %13d  %s %14d  %s   %.0f%%%n",
            scheduling ? "on" : "off",
            p.submissions().length,
            p.percentiles(p.submissions()),
            p.queries().length,
            p.percentiles(p.queries()),
            cpu / (SECONDS * 10.0));
      }
    }
  }

  /** The day's events in a journal, and a snapshot at its end so that recovery is quick. */
  private static void journal(Path dir, BenchState day) {
    try (RocksJournal journal = RocksJournal.open(dir)) {
      List<Event> events = day.events();
      for (int from = 0; from < events.size(); from += 1000) {
        journal.append(events.subList(from, Math.min(events.size(), from + 1000))).join();
      }
      ClusterState s = day.state();
      journal.saveSnapshot(new Journal.Snapshot(s.lastSeq(), Snapshots.image(s)));
    }
  }

  private static void set(BenchServer server, String name, String value) throws Exception {
    try (BerthClient c = BerthClient.connect(server.socket)) {
      BenchServer.manage(
          c,
          Manage.newBuilder()
              .setCommand(Manage.Command.SET)
              .setObjectType(Manage.ObjectType.SERVER)
              .addAttributes(Attribute.newBuilder().setName(name).setValue(value)));
    }
  }

  private record Phase(long[] submissions, long[] queries) {
    String percentiles(long[] nanos) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return String.format(
          "%6.1f / %6.1f / %6.1f / %6.1f",
          at(sorted, 0.5), at(sorted, 0.9), at(sorted, 0.99), sorted[sorted.length - 1] / 1e6);
    }

    private static double at(long[] sorted, double q) {
      return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e6;
    }
  }

  /** Both clients for {@link #SECONDS}; any refused request ends the benchmark with its reason. */
  private static Phase phase(BenchServer server, String watched) throws Exception {
    long deadline = System.nanoTime() + SECONDS * 1_000_000_000L;
    AtomicReference<String> failure = new AtomicReference<>();
    List<Long> submissions = new ArrayList<>();
    List<Long> queries = new ArrayList<>();
    Request.Builder status =
        Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(watched));
    Thread submitter =
        client(server, BenchServer.submission("busy"), deadline, submissions, failure);
    Thread querier = client(server, status, deadline, queries, failure);
    submitter.join();
    querier.join();
    if (failure.get() != null) {
      throw new IllegalStateException(failure.get());
    }
    return new Phase(
        submissions.stream().mapToLong(Long::longValue).toArray(),
        queries.stream().mapToLong(Long::longValue).toArray());
  }

  private static Thread client(
      BenchServer server,
      Request.Builder request,
      long deadline,
      List<Long> latencies,
      AtomicReference<String> failure) {
    Thread t =
        new Thread(
            () -> {
              try (BerthClient c = BerthClient.connect(server.socket)) {
                while (System.nanoTime() < deadline && failure.get() == null) {
                  long begin = System.nanoTime();
                  Response r = c.call(request);
                  latencies.add(System.nanoTime() - begin);
                  if (r.hasError()) {
                    failure.compareAndSet(null, r.getError().getMessage());
                  }
                }
              } catch (Exception e) {
                failure.compareAndSet(null, e.toString());
              }
            });
    t.start();
    return t;
  }
}
