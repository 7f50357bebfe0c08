package dev.berth.server.metrics;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.Request;
import dev.berth.server.state.ClusterState;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The server's instruments, for Prometheus: what the committed events say happened (submissions,
 * completions, failed starts), how the command pipeline performs (journal commits and their batch
 * sizes, scheduling cycles, client requests), and, through {@link ClusterGauges}, what the state
 * holds now. One per server process: a standby that takes over goes on counting in the same
 * counters, and its gauges report the state of whichever server runs in the process.
 */
public final class ServerMetrics {
  /** Seconds, from a fraction of a millisecond (a RocksDB commit) to seconds (a slow broker). */
  private static final double[] LATENCY_BUCKETS = {
    .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10
  };

  private static final double[] BATCH_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

  /** The result labels of berth_jobs_completed_total. */
  private static final String SUCCEEDED = "succeeded";

  private static final String FAILED = "failed";

  private final Counter submitted;
  private final Counter completed;
  private final Counter failedStarts;
  private final Histogram commitSeconds;
  private final Histogram batchEvents;
  private final Histogram cycleSeconds;
  private final Histogram requestSeconds;
  private volatile Supplier<ClusterState> serving;
  private volatile IntSupplier clients;

  public ServerMetrics(PrometheusRegistry registry) {
    submitted =
        Counter.builder()
            .name("berth_jobs_submitted_total")
            .help("Jobs submitted (each subjob of an array job counts).")
            .labelNames("queue")
            .register(registry);
    completed =
        Counter.builder()
            .name("berth_jobs_completed_total")
            .help(
                "Jobs that ended after they started, by queue and result: succeeded (exit status"
                    + " 0) or failed.")
            .labelNames("queue", "result")
            .register(registry);
    failedStarts =
        Counter.builder()
            .name("berth_job_start_failures_total")
            .help(
                "Starts that failed: the job could not start on its nodes, or a prologue or"
                    + " health check sent it back to the queue.")
            .register(registry);
    commitSeconds =
        Histogram.builder()
            .name("berth_journal_commit_seconds")
            .help("How long the journal took to make a batch of events durable.")
            .classicOnly()
            .classicUpperBounds(LATENCY_BUCKETS)
            .register(registry);
    batchEvents =
        Histogram.builder()
            .name("berth_journal_batch_events")
            .help("Events in each batch the journal made durable (group commit).")
            .classicOnly()
            .classicUpperBounds(BATCH_BUCKETS)
            .register(registry);
    cycleSeconds =
        Histogram.builder()
            .name("berth_scheduler_cycle_seconds")
            .help("How long a scheduling cycle took, from its request to its plan.")
            .classicOnly()
            .classicUpperBounds(LATENCY_BUCKETS)
            .register(registry);
    requestSeconds =
        Histogram.builder()
            .name("berth_client_request_seconds")
            .help(
                "How long the server took to answer a client request (a command's until it was"
                    + " durable), by request type.")
            .labelNames("request")
            .classicOnly()
            .classicUpperBounds(LATENCY_BUCKETS)
            .register(registry);
    GaugeWithCallback.builder()
        .name("berth_client_connections")
        .help("Client connections open on the server's socket.")
        .callback(
            cb -> {
              IntSupplier c = clients;
              if (c != null) {
                cb.call(c.getAsInt());
              }
            })
        .register(registry);
    ClusterGauges.register(registry, this::state);
    // Every series exists from the first scrape, at zero: a dashboard's rate() over a series that
    // appears only with its first event shows "No data" until then, and an alert on it never fires.
    for (Request.BodyCase request : Request.BodyCase.values()) {
      if (request != Request.BodyCase.BODY_NOT_SET) {
        requestSeconds.initLabelValues(requestName(request));
      }
    }
  }

  /** The label of a request's type: its field's name in client.proto. */
  public static String requestName(Request.BodyCase request) {
    return request.name().toLowerCase(Locale.ROOT);
  }

  /** Zero series for a queue's submissions and both results of its completions. */
  private void counting(String queue) {
    submitted.initLabelValues(queue);
    completed.initLabelValues(queue, SUCCEEDED);
    completed.initLabelValues(queue, FAILED);
  }

  /**
   * A deleted queue's series go with it: each reservation makes a queue and deletes it, so series
   * kept for every queue there ever was would grow without bound over a server's life.
   */
  private void forget(String queue) {
    submitted.remove(queue);
    completed.remove(queue, SUCCEEDED);
    completed.remove(queue, FAILED);
  }

  /** Instruments nobody scrapes: for a server started without a metrics endpoint. */
  public static ServerMetrics unscraped() {
    return new ServerMetrics(new PrometheusRegistry());
  }

  /**
   * The server now running in this process: its committed state and its open client connections
   * back the gauges. Null for both when it stops.
   */
  public void serving(Supplier<ClusterState> state, IntSupplier connections) {
    this.serving = state;
    this.clients = connections;
    state().ifPresent(s -> s.queues().keySet().forEach(this::counting));
  }

  private Optional<ClusterState> state() {
    Supplier<ClusterState> s = serving;
    return s == null ? Optional.empty() : Optional.ofNullable(s.get());
  }

  /** Counts what a durable batch of events says happened; {@code before} is the state before it. */
  public void committed(ClusterState before, List<Event> events) {
    for (Event e : events) {
      switch (e.getBodyCase()) {
        case QUEUE_CREATED -> counting(e.getQueueCreated().getQueue().getName());
        case QUEUE_DELETED -> forget(e.getQueueDeleted().getQueue());
        case JOB_SUBMITTED -> {
          Job job = e.getJobSubmitted().getJob();
          // an array's subjobs are made from its parent's event, which alone is journaled
          submitted
              .labelValues(job.getQueue())
              .inc(job.getArrayRequest().isEmpty() ? 1 : job.getArraySize());
        }
        case JOB_EXITED -> {
          var exit = e.getJobExited();
          Optional<Job> was = before.job(exit.getJobId());
          if (was.isPresent() && was.get().getStartTime() > 0) {
            completed
                .labelValues(was.get().getQueue(), exit.getExitStatus() == 0 ? SUCCEEDED : FAILED)
                .inc();
          } else if (was.isPresent()
              && exit.getExitStatus() == ExitStatus.EXEC_FAILED.code()
              && was.get().getDeleteRequestedBy().isEmpty()) {
            failedStarts.inc(); // not one deleted before it started
          }
        }
        case JOB_REQUEUED -> {
          if (e.getJobRequeued().getFailedStart()) {
            failedStarts.inc();
          }
        }
        default -> {}
      }
    }
  }

  /** The journal made {@code events} events durable in {@code nanos}. */
  public void journalCommitted(int events, long nanos) {
    commitSeconds.observe(nanos / 1e9);
    batchEvents.observe(events);
  }

  /** A scheduling cycle took {@code nanos} from its request to its plan. */
  public void scheduled(long nanos) {
    cycleSeconds.observe(nanos / 1e9);
  }

  /** The server answered a request of type {@code request} in {@code nanos}. */
  public void answered(String request, long nanos) {
    requestSeconds.labelValues(request).observe(nanos / 1e9);
  }
}
