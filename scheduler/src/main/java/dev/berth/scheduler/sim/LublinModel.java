package dev.berth.scheduler.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * Synthetic batch jobs from the workload model of U. Lublin and D. G. Feitelson ("The workload on
 * parallel supercomputers: modeling the characteristics of rigid jobs", J. Parallel Distrib.
 * Comput. 63(11), 2003), with the parameters its reference program (lublin99.c, Parallel Workloads
 * Archive) gives batch jobs. A job's size, run time and arrival are drawn in that order:
 *
 * <ul>
 *   <li>size: serial with probability 0.2927; otherwise log2(size) is two-stage uniform: with
 *       probability 0.875 between 1.2 and UMed, else between UMed and UHi = log2(processors), with
 *       UMed = UHi - 2 as in the defaults (5 and 7 for 128 processors). For a share 0.6686 of all
 *       jobs the exponent is rounded, so the size is a power of two.
 *   <li>run time: ln(run time in s) is hyper-gamma, gamma(6.57, 0.823) with probability p and
 *       gamma(639.1, 0.0156) otherwise, where p = 0.6986 − 0.003 × size, kept in [0, 1], so wider
 *       jobs run longer. A draw above 12 (e^12 s, about 45 h) is drawn again.
 *   <li>arrival: ln(gap in s) is gamma(6.0415 × 1.0519, 0.8531), drawn again above 13 (about 5
 *       days). The gap is spent through a daily cycle: each half hour of the day has a rate, its
 *       share of a gamma(6.1271, 5.2740) over half-hour numbers, the fitted day running from 05:00
 *       to 05:00, scaled to a mean of 1; a half hour at rate r passes 1800 × r seconds of a drawn
 *       gap. So gaps stretch at night and shrink at lunchtime, and over whole days the mean gap is
 *       the mean drawn one. The trace starts at midnight; the first job arrives one gap later.
 * </ul>
 *
 * The model's interactive jobs are left out. It has no requested times, users or groups, so the
 * jobs carry -1 for each. Draws come from {@link Random}, whose algorithms are specified, so a seed
 * gives the same trace on every JDK.
 */
public final class LublinModel {
  private static final double SERIAL = 0.2927;
  private static final double POWER_OF_TWO = 0.6686;
  private static final double SMALLEST_LOG_SIZE = 1.2;
  private static final double MEDIUM_BELOW_WIDEST = 2;
  private static final double BELOW_MEDIUM = 0.875;

  private static final double SHORT_SHAPE = 6.57;
  private static final double SHORT_SCALE = 0.823;
  private static final double LONG_SHAPE = 639.1;
  private static final double LONG_SCALE = 0.0156;
  private static final double SHORT_BASE = 0.6986;
  private static final double SHORT_PER_PROCESSOR = -0.003;
  private static final double LONGEST_LOG_RUNTIME = 12;

  // The reference program fits the gap's shape to rush hours and widens it by this ratio ("ARAR")
  // so that it holds for the whole day.
  private static final double GAP_SHAPE = 6.0415 * 1.0519;
  private static final double GAP_SCALE = 0.8531;
  private static final double LONGEST_LOG_GAP = 13;
  private static final double DAY_SHAPE = 6.1271;
  private static final double DAY_SCALE = 5.2740;

  private LublinModel() {}

  /** Jobs for a machine of {@code processors} processors, deterministic for {@code seed}. */
  public static List<SwfJob> jobs(int count, int processors, long seed) {
    if (count < 0) {
      throw new IllegalArgumentException("a trace needs 0 jobs or more, not " + count);
    }
    if (processors < 1) {
      throw new IllegalArgumentException("a machine needs 1 processor or more, not " + processors);
    }
    Random random = new Random(seed);
    DailyCycle clock = new DailyCycle();
    List<SwfJob> jobs = new ArrayList<>(count);
    for (int number = 1; number <= count; number++) {
      long submit = (long) clock.advance(Math.exp(gap(random)));
      int size = size(random, processors);
      jobs.add(new SwfJob(number, submit, runtime(random, size), size, -1, -1, -1));
    }
    return List.copyOf(jobs);
  }

  /**
   * The jobs as Standard Workload Format text: a header comment naming the model, seed and machine
   * size, then one line per job with its 18 fields (unknown fields -1; status 1; queue 1).
   */
  public static String swf(List<SwfJob> jobs, int processors, long seed) {
    StringBuilder text =
        new StringBuilder()
            .append("; Version: 2.2\n")
            .append("; Computer: synthetic machine of ")
            .append(processors)
            .append(" processors\n")
            .append("; Note: Lublin & Feitelson (2003) workload model, batch jobs, seed ")
            .append(seed)
            .append('\n')
            .append("; Note: the model gives no requested times, users or groups\n")
            .append("; MaxJobs: ")
            .append(jobs.size())
            .append("\n; MaxRecords: ")
            .append(jobs.size())
            .append("\n; MaxProcs: ")
            .append(processors)
            .append("\n; MaxRuntime: ")
            .append((long) Math.exp(LONGEST_LOG_RUNTIME))
            .append("\n; MaxQueues: 1\n; Queue: 1 batch\n");
    for (SwfJob job : jobs) {
      // A rigid job requests the processors it runs on.
      text.append(job.number())
          .append(' ')
          .append(job.submit())
          .append(" -1 ")
          .append(job.runtime())
          .append(' ')
          .append(job.processors())
          .append(" -1 -1 ")
          .append(job.processors())
          .append(' ')
          .append(job.requestedTime())
          .append(" -1 1 ")
          .append(job.user())
          .append(' ')
          .append(job.group())
          .append(" -1 1 -1 -1 -1\n");
    }
    return text.toString();
  }

  /** ln of the seconds to the next arrival, counted at the day's mean rate. */
  private static double gap(Random random) {
    double logGap;
    do {
      logGap = gamma(random, GAP_SHAPE, GAP_SCALE);
    } while (logGap > LONGEST_LOG_GAP);
    return logGap;
  }

  private static int size(Random random, int processors) {
    double u = random.nextDouble();
    if (u < SERIAL || processors == 1) {
      return 1;
    }
    // On machines under 2^3.2 processors the default range would start above or too near the top:
    // it is narrowed to fit.
    double widest = Math.log(processors) / Math.log(2);
    double smallest = Math.min(SMALLEST_LOG_SIZE, widest);
    double medium = Math.max(smallest, widest - MEDIUM_BELOW_WIDEST);
    double exponent =
        random.nextDouble() < BELOW_MEDIUM
            ? uniform(random, smallest, medium)
            : uniform(random, medium, widest);
    if (u < SERIAL + POWER_OF_TWO) {
      // Rounding may pass log2(processors) when that is not whole; the job then takes the largest
      // power of two that fits.
      int largest = 31 - Integer.numberOfLeadingZeros(processors);
      return 1 << Math.min(Math.round(exponent), largest);
    }
    return (int) Math.round(Math.pow(2, exponent));
  }

  /** Whole seconds, at least 1 as ln(run time) is never negative. */
  private static long runtime(Random random, int size) {
    double shortShare = Math.min(1, Math.max(0, SHORT_BASE + SHORT_PER_PROCESSOR * size));
    double logRuntime;
    do {
      logRuntime =
          random.nextDouble() < shortShare
              ? gamma(random, SHORT_SHAPE, SHORT_SCALE)
              : gamma(random, LONG_SHAPE, LONG_SCALE);
    } while (logRuntime > LONGEST_LOG_RUNTIME);
    return (long) Math.exp(logRuntime);
  }

  private static double uniform(Random random, double from, double to) {
    return from + random.nextDouble() * (to - from);
  }

  /**
   * Marsaglia and Tsang's method (ACM TOMS 26(3), 2000). Every shape in this model is above 1, the
   * case it handles without a boost.
   */
  private static double gamma(Random random, double shape, double scale) {
    double d = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    while (true) {
      double x = random.nextGaussian();
      double v = 1 + c * x;
      if (v <= 0) {
        continue;
      }
      v = v * v * v;
      double u = random.nextDouble();
      double xx = x * x;
      if (u < 1 - 0.0331 * xx * xx || Math.log(u) < xx / 2 + d * (1 - v + Math.log(v))) {
        return d * v * scale;
      }
    }
  }

  /**
   * Wall-clock time that passes demand, counted in seconds at the day's mean rate, by half hours.
   */
  private static final class DailyCycle {
    private static final int HALF_HOURS = 48;
    private static final double HALF_HOUR = 1800;
    // The fitted day's first half hour, 05:00, is number 11 on the gamma's axis.
    private static final int DAY_START = 10;
    private static final int DAY_START_NUMBER = 11;
    private static final int STEPS = 64;

    private final double[] rate = new double[HALF_HOURS];
    private int halfHour;
    private double spent;
    private double now;

    DailyCycle() {
      double mode = (DAY_SHAPE - 1) * DAY_SCALE;
      // The density over its value at the mode: the gamma function cancels once the rates are
      // scaled to a mean of 1.
      DoubleUnaryOperator density =
          x -> Math.exp((DAY_SHAPE - 1) * Math.log(x / mode) - (x - mode) / DAY_SCALE);
      double total = 0;
      for (int h = 0; h < HALF_HOURS; h++) {
        double number = Math.floorMod(h - DAY_START, HALF_HOURS) + DAY_START_NUMBER;
        rate[h] = simpson(density, number - 0.5, number + 0.5);
        total += rate[h];
      }
      for (int h = 0; h < HALF_HOURS; h++) {
        rate[h] *= HALF_HOURS / total;
      }
    }

    /** Seconds from the trace's start (midnight) once {@code demand} more has passed. */
    double advance(double demand) {
      while (demand > (HALF_HOUR - spent) * rate[halfHour]) {
        demand -= (HALF_HOUR - spent) * rate[halfHour];
        now += HALF_HOUR - spent;
        spent = 0;
        halfHour = (halfHour + 1) % HALF_HOURS;
      }
      double seconds = demand / rate[halfHour];
      spent += seconds;
      now += seconds;
      return now;
    }

    private static double simpson(DoubleUnaryOperator f, double from, double to) {
      double h = (to - from) / STEPS;
      double sum = f.applyAsDouble(from) + f.applyAsDouble(to);
      for (int i = 1; i < STEPS; i++) {
        sum += (i % 2 == 0 ? 2 : 4) * f.applyAsDouble(from + i * h);
      }
      return sum * h / 3;
    }
  }
}
