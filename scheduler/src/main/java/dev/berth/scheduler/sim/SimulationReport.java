package dev.berth.scheduler.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What a simulation measured, in the terms schedulers are compared by: utilization of the CPUs from
 * the first submission to the last end, waits, and the mean bounded slowdown (each job's time in
 * the system over its run time, run times under {@link #TAU} seconds counted as {@link #TAU}, at
 * least 1), how many jobs were given a reserved start and how many of those started after the first
 * start reserved for them, with the real time the policy's cycles took.
 */
public record SimulationReport(
    int jobs,
    int leftOut,
    int tooLarge,
    double utilization,
    double meanWait,
    long maxWait,
    double meanBoundedSlowdown,
    int reserved,
    int startedAfterReservation,
    int withoutRequestedTime,
    String plannedWith,
    List<Long> cycleNanos) {
  public static final long TAU = 10;

  public SimulationReport {
    cycleNanos = List.copyOf(cycleNanos);
  }

  /** The cycle time at {@code quantile} (0 to 1), in milliseconds; 0 without cycles. */
  public double cycleMillis(double quantile) {
    if (cycleNanos.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(cycleNanos);
    Collections.sort(sorted);
    int i = (int) Math.min(sorted.size() - 1, Math.floor(quantile * sorted.size()));
    return sorted.get(i) / 1e6;
  }

  /** The report as the lines {@code berth simulate} prints. */
  public List<String> lines() {
    List<String> lines = new ArrayList<>(main());
    if (withoutRequestedTime > 0) {
      lines.add(
          String.format(
              Locale.ROOT,
              "jobs without a requested time %d, planned with %s%s",
              withoutRequestedTime,
              plannedWith,
              plannedWith.equals("none")
                  ? ": backfill reserves no start behind them (--missing-time)"
                  : ""));
    }
    return lines;
  }

  private List<String> main() {
    return List.of(
        String.format(
            Locale.ROOT,
            "jobs %d (left out of the trace: %d, larger than the cluster: %d)",
            jobs,
            leftOut,
            tooLarge),
        String.format(Locale.ROOT, "utilization %.1f%%", 100 * utilization),
        String.format(Locale.ROOT, "wait mean %.0f s, max %d s", meanWait, maxWait),
        String.format(
            Locale.ROOT, "bounded slowdown (tau %d s) mean %.2f", TAU, meanBoundedSlowdown),
        String.format(
            Locale.ROOT,
            "reserved starts %d jobs, %d of them started after their first reserved start",
            reserved,
            startedAfterReservation),
        String.format(
            Locale.ROOT,
            "scheduling cycles %d: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms",
            cycleNanos.size(),
            cycleMillis(0.5),
            cycleMillis(0.9),
            cycleMillis(0.99),
            cycleMillis(1.0)));
  }

  /** Collects a run's figures as jobs start. */
  static final class Builder {
    private final long totalCpus;
    private final List<Long> cycles = new ArrayList<>();
    private int jobs;
    private int tooLarge;
    private long firstSubmit = Long.MAX_VALUE;
    private long lastEnd = Long.MIN_VALUE;
    private double work;
    private double waits;
    private long maxWait;
    private double slowdowns;
    private int reserved;
    private int late;
    private int withoutRequestedTime;
    private final String plannedWith;

    Builder(long totalCpus, String plannedWith) {
      this.totalCpus = totalCpus;
      this.plannedWith = plannedWith;
    }

    void tooLarge() {
      tooLarge++;
    }

    void cycle(long nanos) {
      cycles.add(nanos);
    }

    /** A job started that had been given a start, reserved at {@code firstReserved}. */
    void reservedStart(long firstReserved, long now) {
      reserved++;
      if (now > firstReserved) {
        late++;
      }
    }

    void started(SwfJob j, long now) {
      long wait = now - j.submit();
      jobs++;
      if (j.requestedTime() <= 0) {
        withoutRequestedTime++;
      }
      firstSubmit = Math.min(firstSubmit, j.submit());
      lastEnd = Math.max(lastEnd, now + j.runtime());
      work += (double) j.processors() * j.runtime();
      waits += wait;
      maxWait = Math.max(maxWait, wait);
      slowdowns += Math.max(1.0, (double) (wait + j.runtime()) / Math.max(j.runtime(), TAU));
    }

    SimulationReport build(int leftOut) {
      long span = jobs == 0 ? 0 : lastEnd - firstSubmit;
      return new SimulationReport(
          jobs,
          leftOut,
          tooLarge,
          span == 0 ? 0 : work / ((double) totalCpus * span),
          jobs == 0 ? 0 : waits / jobs,
          maxWait,
          jobs == 0 ? 0 : slowdowns / jobs,
          reserved,
          late,
          withoutRequestedTime,
          plannedWith,
          cycles);
    }
  }
}
