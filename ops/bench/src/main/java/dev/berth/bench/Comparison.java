package dev.berth.bench;

import java.util.ArrayList;
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

  /** One line per measure: each kind's values in run order, their mean, and TLS/insecure. */
  void print(String title) {
    System.out.printf("%n%s: %s vs %s%n", title, Trust.TLS.label, Trust.INSECURE.label);
    System.out.printf(
        "%-50s %-30s %-30s %s%n", "", Trust.TLS.label, Trust.INSECURE.label, "TLS/insecure");
    for (Map.Entry<String, Map<Trust, List<Double>>> e : values.entrySet()) {
      List<Double> tls = e.getValue().getOrDefault(Trust.TLS, List.of());
      List<Double> insecure = e.getValue().getOrDefault(Trust.INSECURE, List.of());
      System.out.printf(
          "%-50s %-30s %-30s %.2f%n",
          e.getKey(), runs(tls), runs(insecure), mean(tls) / mean(insecure));
    }
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
