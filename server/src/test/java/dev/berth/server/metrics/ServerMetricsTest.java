package dev.berth.server.metrics;

import static dev.berth.server.testing.Events.alloc;
import static dev.berth.server.testing.Events.array;
import static dev.berth.server.testing.Events.dispatched;
import static dev.berth.server.testing.Events.exited;
import static dev.berth.server.testing.Events.job;
import static dev.berth.server.testing.Events.killRequested;
import static dev.berth.server.testing.Events.nodeCreated;
import static dev.berth.server.testing.Events.queueCreated;
import static dev.berth.server.testing.Events.queueDeleted;
import static dev.berth.server.testing.Events.requeued;
import static dev.berth.server.testing.Events.started;
import static dev.berth.server.testing.Events.submitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Event;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerMetricsTest {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ServerMetrics metrics = new ServerMetrics(registry);
  private ClusterState state = ClusterState.EMPTY;

  /** Commits {@code events} one by one, as the server does after each durable batch. */
  private void commit(Event.Builder... events) {
    for (Event.Builder e : events) {
      ClusterState before = state;
      Event event = e.setSeq(state.lastSeq() + 1).build();
      state = StateMachine.apply(state, event);
      metrics.committed(before, List.of(event));
    }
  }

  private double value(String name, String... labels) {
    for (MetricSnapshot m : registry.scrape()) {
      if (!m.getMetadata().getName().equals(name)) {
        continue;
      }
      for (DataPointSnapshot p : m.getDataPoints()) {
        if (p.getLabels().equals(Labels.of(labels))) {
          return p instanceof CounterDataPointSnapshot c
              ? c.getValue()
              : ((GaugeDataPointSnapshot) p).getValue();
        }
      }
    }
    return 0;
  }

  @Test
  void countsSubmissionsCompletionsAndFailedStartsFromCommittedEvents() {
    commit(queueCreated("batch"), nodeCreated("n1", 2));
    commit(submitted(job(1)), submitted(array(2, "0-2", 3)), submitted(job(3)));
    commit(dispatched("1.srv", alloc("n1", 0)), started("1.srv", 100, 10), exited("1.srv", 0, 20));
    commit(dispatched("3.srv", alloc("n1", 1)), exited("3.srv", -1, 21));
    commit(submitted(job(5)), dispatched("5.srv", alloc("n1", 1)));
    commit(
        killRequested("5.srv", "deleted by alice@login1").setActor("alice@login1"),
        exited("5.srv", -1, 22));
    commit(submitted(job(4)), dispatched("4.srv", alloc("n1", 0)));
    Event.Builder failedStart = requeued("4.srv", "requeued: prologue failed");
    failedStart.getJobRequeuedBuilder().setFailedStart(true);
    commit(failedStart);

    assertEquals(7, value("berth_jobs_submitted", "queue", "batch"), "an array counts its 3");
    assertEquals(1, value("berth_jobs_completed", "queue", "batch", "result", "succeeded"));
    assertEquals(0, value("berth_jobs_completed", "queue", "batch", "result", "failed"));
    assertEquals(
        2,
        value("berth_job_start_failures"),
        "the exec failure and the requeue, not the job deleted before it started");
  }

  /**
   * A series that appeared only with its first event left a dashboard's panel empty ("No data") and
   * an alert on its rate silent until then: every counter and histogram is there from the first
   * scrape, at zero, for every queue the state holds when a server starts serving it and for every
   * queue made later, and for every kind of request.
   */
  @Test
  void everySeriesIsThereAtZeroBeforeItsFirstEvent() {
    commit(queueCreated("batch"));
    metrics.serving(() -> state, () -> 0);
    commit(queueCreated("long"));

    for (String queue : List.of("batch", "long")) {
      assertPresent("berth_jobs_submitted", "queue", queue);
      assertPresent("berth_jobs_completed", "queue", queue, "result", "succeeded");
      assertPresent("berth_jobs_completed", "queue", queue, "result", "failed");
    }
    assertPresent("berth_job_start_failures");
    assertPresent("berth_client_request_seconds", "request", "submit");
    assertPresent("berth_client_request_seconds", "request", "stat_jobs");
    assertPresent("berth_journal_commit_seconds");
    assertPresent("berth_scheduler_cycle_seconds");
    assertEquals(0, value("berth_jobs_submitted", "queue", "long"));
  }

  /**
   * A fresh server, as the standby that takes over, counts on from what the process counted: the
   * series a queue already has keep their values when it starts serving again.
   */
  @Test
  void servingAgainKeepsWhatWasCounted() {
    commit(queueCreated("batch"), submitted(job(1)));
    metrics.serving(() -> state, () -> 0);
    metrics.serving(null, null);
    metrics.serving(() -> state, () -> 0);
    assertEquals(1, value("berth_jobs_submitted", "queue", "batch"));
  }

  /**
   * Reservations make a queue each and delete it when they end: the series of queues deleted go, so
   * what a server exposes stays bounded by the queues it has.
   */
  @Test
  void aDeletedQueuesSeriesGoWithIt() {
    commit(queueCreated("batch"), queueCreated("R12"));
    metrics.serving(() -> state, () -> 0);
    commit(submitted(job(1).toBuilder().setQueue("R12").build()));
    assertEquals(1, value("berth_jobs_submitted", "queue", "R12"));

    commit(queueDeleted("R12"));
    assertFalse(present("berth_jobs_submitted", "queue", "R12"));
    assertFalse(present("berth_jobs_completed", "queue", "R12", "result", "succeeded"));
    assertFalse(present("berth_jobs_completed", "queue", "R12", "result", "failed"));
    assertPresent("berth_jobs_submitted", "queue", "batch");
  }

  private void assertPresent(String name, String... labels) {
    assertTrue(present(name, labels), name + " " + List.of(labels) + " is not in the scrape");
  }

  private boolean present(String name, String... labels) {
    for (MetricSnapshot m : registry.scrape()) {
      if (m.getMetadata().getName().equals(name)) {
        for (DataPointSnapshot p : m.getDataPoints()) {
          if (p.getLabels().equals(Labels.of(labels))) {
            return true;
          }
        }
      }
    }
    return false;
  }

  @Test
  void gaugesReadTheServingStateAndNothingWhenNoServerRuns() {
    commit(queueCreated("batch"), nodeCreated("n1", 2), submitted(job(1)), submitted(job(2)));
    commit(dispatched("1.srv", alloc("n1", 0)));
    assertEquals(0, value("berth_jobs", "queue", "batch", "state", "queued"), "no server yet");

    metrics.serving(() -> state, () -> 3);
    assertEquals(1, value("berth_jobs", "queue", "batch", "state", "queued"));
    assertEquals(1, value("berth_jobs", "queue", "batch", "state", "running"));
    assertEquals(1, value("berth_scheduler_backlog_jobs"));
    assertEquals(2, value("berth_node_cpus", "node", "n1"));
    assertEquals(1, value("berth_node_cpus_allocated", "node", "n1"));
    assertEquals(3, value("berth_client_connections"));

    metrics.serving(null, null);
    assertEquals(0, value("berth_jobs", "queue", "batch", "state", "running"), "it stopped");
  }

  /**
   * Anyone the metrics endpoint admits reads every series, so no label may name a job: the labels
   * are queues, states, nodes, results and request kinds, which qstat -Q and pbsnodes show anyone.
   */
  @Test
  void noLabelCarriesAJobId() {
    commit(queueCreated("batch"), nodeCreated("n1", 2), submitted(job(1)), submitted(job(2)));
    commit(dispatched("1.srv", alloc("n1", 0)), started("1.srv", 100, 10), exited("1.srv", 3, 20));
    commit(dispatched("2.srv", alloc("n1", 1)));
    metrics.serving(() -> state, () -> 1);
    metrics.answered("STAT_JOBS", 1_000_000);
    for (MetricSnapshot m : registry.scrape()) {
      for (DataPointSnapshot p : m.getDataPoints()) {
        p.getLabels()
            .forEach(
                label ->
                    assertEquals(
                        -1,
                        label.getValue().indexOf(".srv"),
                        m.getMetadata().getName() + " " + p.getLabels()));
      }
    }
  }
}
