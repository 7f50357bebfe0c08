package dev.berth.scheduler;

import java.util.HashMap;
import java.util.Map;

/**
 * Usage that halves every half-life: a value as it stood at {@code asOfMillis}. Charging more first
 * decays what there was to the moment of the charge, so the same charges at the same moments give
 * the same value however they are replayed.
 */
public record DecayedUsage(double value, long asOfMillis) {
  public static final DecayedUsage NONE = new DecayedUsage(0, 0);

  /** The value at {@code millis}; never more than it was, should a clock step back. */
  public double at(long millis, long halfLifeSeconds) {
    long elapsed = Math.max(0, millis - asOfMillis);
    return value * StrictMath.pow(2, -elapsed / (1000.0 * Math.max(1, halfLifeSeconds)));
  }

  /** Each name's usage as it stands at {@code millis}. */
  public static Map<String, Double> valuesAt(
      Map<String, DecayedUsage> usage, long millis, long halfLifeSeconds) {
    Map<String, Double> result = new HashMap<>();
    usage.forEach((name, u) -> result.put(name, u.at(millis, halfLifeSeconds)));
    return result;
  }

  /** This usage decayed to {@code millis}, plus {@code amount} charged then. */
  public DecayedUsage plus(double amount, long millis, long halfLifeSeconds) {
    return new DecayedUsage(at(millis, halfLifeSeconds) + amount, Math.max(millis, asOfMillis));
  }
}
