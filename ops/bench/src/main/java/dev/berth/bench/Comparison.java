package dev.berth.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The same measurements taken with TLS and with --insecure over several rounds. Prints every value,
 * not just a mean, because on a shared two-CPU machine the spread between runs of one kind is often
 * as large as the difference between kinds, and the reader should see both.
 */
final class Comparison {
  private final Map<String, Map<Trust, List<Double>>> values = new LinkedHashMap<>();

  void add(String measure, Trust trust, double value) {
    values
        .computeIfAbsent(measure, m -> new EnumMap<>(Trust.class))
        .computeIfAbsent(trust, t -> new ArrayList<>())
        .add(value);
  }

  /**
   * One line per measure: each kind's values in run order with their mean, then TLS/insecure twice:
   * of the means, and the median of each round's own ratio. Both kinds of a round ran back to back,
   * so the second is the steadier while the load on the machine drifts.
   */
  void print(String title) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"", Trust.TLS.label, Trust.INSECURE.label, "of means", "per round"});
    for (Map.Entry<String, Map<Trust, List<Double>>> e : values.entrySet()) {
      List<Double> tls = e.getValue().getOrDefault(Trust.TLS, List.of());
      List<Double> insecure = e.getValue().getOrDefault(Trust.INSECURE, List.of());
      rows.add(
          new String[] {
            e.getKey(),
            runs(tls),
            runs(insecure),
            String.format("%.2f", mean(tls) / mean(insecure)),
            String.format("%.2f", medianRatio(tls, insecure))
          });
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    System.out.printf(
        "%n%s: %s vs %s, TLS/insecure%n", title, Trust.TLS.label, Trust.INSECURE.label);
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(String.format("%-" + (widths[i] + 2) + "s", row[i]));
      }
      System.out.println(line.toString().stripTrailing());
    }
  }

  private static double medianRatio(List<Double> tls, List<Double> insecure) {
    int rounds = Math.min(tls.size(), insecure.size());
    double[] ratios = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      ratios[i] = tls.get(i) / insecure.get(i);
    }
    Arrays.sort(ratios);
    return rounds == 0
        ? Double.NaN
        : rounds % 2 == 1 ? ratios[rounds / 2] : (ratios[rounds / 2 - 1] + ratios[rounds / 2]) / 2;
  }

  private static String runs(List<Double> values) {
    return values.stream().map(Comparison::format).collect(Collectors.joining(" "))
        + " (mean "
        + format(mean(values))
        + ")";
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  /** Three significant digits or so: enough for numbers that vary by several percent. */
  private static String format(double v) {
    return Math.abs(v) >= 100 ? String.format("%.0f", v) : String.format("%.3g", v);
  }
}
