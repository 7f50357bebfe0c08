package dev.berth.scheduler.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The generated trace against the model's batch parameters, restated here as published in the
 * reference program lublin99.c. Each statistical check allows four standard errors, which a correct
 * model exceeds for a rare seed only; the seed is fixed, so the checks do not flake.
 */
class LublinModelTest {
  private static final int JOBS = 20_000;
  private static final int PROCESSORS = 128;
  private static final List<SwfJob> TRACE = LublinModel.jobs(JOBS, PROCESSORS, 42);

  @Test
  void aSeedGivesOneTrace() {
    assertEquals(LublinModel.jobs(500, PROCESSORS, 7), LublinModel.jobs(500, PROCESSORS, 7));
    assertNotEquals(LublinModel.jobs(500, PROCESSORS, 7), LublinModel.jobs(500, PROCESSORS, 8));
  }

  @Test
  void everyJobFitsItsMachine() {
    long longest = (long) Math.exp(12);
    for (int processors : new int[] {1, 2, 3, 100, 128, 1000}) {
      List<SwfJob> jobs = LublinModel.jobs(2000, processors, processors);
      assertEquals(2000, jobs.size());
      long submit = 0;
      for (int i = 0; i < jobs.size(); i++) {
        SwfJob job = jobs.get(i);
        String where = processors + " processors, " + job;
        assertEquals(i + 1, job.number(), where);
        assertTrue(job.submit() >= submit, where);
        assertTrue(job.runtime() >= 1 && job.runtime() <= longest, where);
        assertTrue(job.processors() >= 1 && job.processors() <= processors, where);
        assertEquals(-1, job.requestedTime(), where);
        assertEquals(-1, job.user(), where);
        assertEquals(-1, job.group(), where);
        submit = job.submit();
      }
    }
  }

  @Test
  void sizesScaleWithTheMachine() {
    // log2(size) reaches up to log2(processors): some 2% of jobs round up to the whole machine.
    assertTrue(LublinModel.jobs(5000, 1024, 1).stream().anyMatch(j -> j.processors() == 1024));
  }

  @Test
  void refusesAMachineWithoutProcessors() {
    assertThrows(IllegalArgumentException.class, () -> LublinModel.jobs(10, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> LublinModel.jobs(-1, PROCESSORS, 1));
  }

  @Test
  void serialJobsAreTheModelsShare() {
    // A binomial share: 4 × sqrt(0.2927 × 0.7073 / 20,000) = 0.013.
    double serial = share(TRACE.stream().filter(j -> j.processors() == 1).count());
    assertEquals(0.2927, serial, 0.013);
  }

  @Test
  void powerOfTwoSizesAreTheModelsShare() {
    // 0.6686 of the jobs are rounded to a power of two. Of the other 0.0387 of parallel jobs,
    // round(2^u) lands on one for u within about 0.78 of [1.2, 5], where u's density is 0.875 /
    // 3.8,
    // and 0.05 of [5, 7], density 0.125 / 2: 0.18 of them, which adds 0.007. The binomial standard
    // error is sqrt(0.676 × 0.324 / 20,000) = 0.0033, four of them 0.013.
    double powersOfTwo =
        share(
            TRACE.stream()
                .filter(j -> j.processors() > 1 && Integer.bitCount(j.processors()) == 1)
                .count());
    assertEquals(0.6686 + 0.007, powersOfTwo, 0.013);
  }

  @Test
  void medianRunTimeIsTheModels() {
    // Given the sizes drawn, ln(run time) of a job of n processors is gamma(6.57, 0.823) with
    // probability p(n) = 0.6986 - 0.003 n (within [0.31, 0.70] up to 128 processors, so never
    // clamped), else gamma(639.1, 0.0156), cut at 12. The trace's ln run times are then a sample
    // of the average of these distributions, the same mixture with p̄, the mean p(n) over the
    // trace. Its median m solves cdf(m) = 1/2, and the sample median's standard error is
    // 1 / (2 f(m) sqrt(N)), f the mixture's density; run times are whole seconds, which moves
    // ln(median) of some 800 s by under 0.002.
    double shortShare =
        TRACE.stream().mapToDouble(j -> 0.6986 - 0.003 * j.processors()).average().orElseThrow();
    Gamma shortRuns = new Gamma(6.57, 0.823);
    Gamma longRuns = new Gamma(639.1, 0.0156);
    DoubleUnaryOperator mixture =
        x -> shortShare * shortRuns.cdf(x) + (1 - shortShare) * longRuns.cdf(x);
    double kept = mixture.applyAsDouble(12);
    DoubleUnaryOperator cdf = x -> mixture.applyAsDouble(x) / kept;
    double expected = solve(cdf, 0.5, 0, 12);
    double density =
        (cdf.applyAsDouble(expected + 0.01) - cdf.applyAsDouble(expected - 0.01)) / 0.02;
    double tolerance = 4 / (2 * density * Math.sqrt(JOBS)) + 0.002;

    long[] runtimes = TRACE.stream().mapToLong(SwfJob::runtime).sorted().toArray();
    double median = Math.log(runtimes[JOBS / 2]);
    assertEquals(expected, median, tolerance, "e^" + expected + " s expected");
  }

  @Test
  void meanGapIsTheModels() {
    // Gaps are e^G, G ~ gamma(6.0415 × 1.0519, 0.8531) cut at 13. The daily cycle slows and speeds
    // time but, its rates averaging 1 over a day, moves an arrival by less than a day from the sum
    // of the gaps before it; with the cut to whole seconds that shifts the mean by at most
    // 86,400 / N + 1 s. The mean of e^G is dominated by the draws near the cut, so its standard
    // error is wide: sd(e^G) / sqrt(N), about 140 s on a mean of about 3,500 s.
    Gamma logGap = new Gamma(6.0415 * 1.0519, 0.8531);
    double kept = logGap.integral(x -> 1, 13);
    double mean = logGap.integral(Math::exp, 13) / kept;
    double meanSquare = logGap.integral(x -> Math.exp(2 * x), 13) / kept;
    double standardError = Math.sqrt((meanSquare - mean * mean) / JOBS);
    double tolerance = 4 * standardError + 86_400.0 / JOBS + 1;

    double observed = (double) TRACE.get(JOBS - 1).submit() / JOBS;
    assertEquals(mean, observed, tolerance);
  }

  @Test
  void moreJobsArriveByDayThanAtNight() {
    // Half hour h of the day gets arrivals in proportion to its share of gamma(6.1271, 5.2740)
    // over [x - 0.5, x + 0.5], x = h + 1 from 05:00 (h = 10) on, the fitted day running 05:00 to
    // 05:00: from 09:00 to 17:00 that is the mass of [18.5, 34.5] over that of [10.5, 58.5], 0.51
    // where a flat day gives 1/3. Arrivals come in bursts, a median gap being under 3 min, so some
    // ten at a time share a half hour: as a binomial share of about 2,000 independent draws its
    // standard error is sqrt(0.25 / 2,000) = 0.011, four of them 0.045.
    Gamma day = new Gamma(6.1271, 5.2740);
    double expected = (day.cdf(34.5) - day.cdf(18.5)) / (day.cdf(58.5) - day.cdf(10.5));
    double daytime =
        share(
            TRACE.stream()
                .filter(j -> j.submit() % 86_400 >= 9 * 3600 && j.submit() % 86_400 < 17 * 3600)
                .count());
    assertEquals(expected, daytime, 0.045);
  }

  @Test
  void swfTextReadsBackAsTheSameJobs() throws IOException {
    List<SwfJob> jobs = LublinModel.jobs(1000, 100, 3);
    String text = LublinModel.swf(jobs, 100, 3);
    assertTrue(text.startsWith(";"), text.substring(0, 80));
    assertTrue(text.contains("Lublin") && text.contains("seed 3"), text.substring(0, 400));
    assertTrue(text.contains("; MaxProcs: 100\n"), text.substring(0, 400));
    assertTrue(text.lines().filter(l -> !l.startsWith(";")).allMatch(l -> fields(l) == 18));

    SwfTrace trace = SwfTrace.parse(new StringReader(text));
    assertEquals(jobs, trace.jobs());
    assertEquals(0, trace.leftOut());
  }

  private static int fields(String line) {
    return line.strip().split("\\s+").length;
  }

  private static double share(long count) {
    return (double) count / JOBS;
  }

  /** The x in [from, to] where an increasing {@code f} reaches {@code target}, by bisection. */
  private static double solve(DoubleUnaryOperator f, double target, double from, double to) {
    for (int i = 0; i < 60; i++) {
      double middle = (from + to) / 2;
      if (f.applyAsDouble(middle) < target) {
        from = middle;
      } else {
        to = middle;
      }
    }
    return (from + to) / 2;
  }

  /**
   * A gamma distribution worked out by Simpson's rule over its density divided by its value at the
   * mode, which leaves the gamma function out and keeps e^(2x) times it finite up to x = 13.
   */
  private record Gamma(double shape, double scale) {
    private static final int STEPS = 20_000;

    double density(double x) {
      double mode = (shape - 1) * scale;
      return x <= 0 ? 0 : Math.exp((shape - 1) * Math.log(x / mode) - (x - mode) / scale);
    }

    /** The integral of {@code g} times the density from 0 to {@code to}. */
    double integral(DoubleUnaryOperator g, double to) {
      double h = to / STEPS;
      double sum = g.applyAsDouble(to) * density(to);
      for (int i = 1; i < STEPS; i++) {
        double x = i * h;
        sum += (i % 2 == 0 ? 2 : 4) * g.applyAsDouble(x) * density(x);
      }
      return sum * h / 3;
    }

    double cdf(double x) {
      double tail = shape * scale + 40 * Math.sqrt(shape) * scale;
      return integral(y -> 1, x) / integral(y -> 1, tail);
    }
  }
}
