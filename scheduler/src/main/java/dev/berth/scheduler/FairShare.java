package dev.berth.scheduler;

import dev.berth.proto.Job;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fair-share factor of users and accounts, as Slurm's classic formula: {@code 2^(-U/S)}, where
 * U is the user's (account's) part of all decayed usage and S its part of all shares. 1 when it has
 * used nothing, 0.5 when it used exactly its share, towards 0 as it uses more. Shares are those set
 * for a name, or {@code defaultShares}; the parts are taken among every name that has usage or
 * shares set, and the one asked about.
 *
 * <p>A job's factor is its user's times its account's: a user who used little in an account that
 * used much still waits behind the other accounts' users.
 */
public final class FairShare {
  /** No usage recorded anywhere: every factor is 1. */
  public static final FairShare NONE = new FairShare(Map.of(), Map.of(), Map.of(), Map.of(), 1);

  private final Level users;
  private final Level accounts;

  /**
   * @param userUsage decayed usage per user, in CPU-second equivalents
   * @param accountUsage decayed usage per account
   */
  public FairShare(
      Map<String, Double> userUsage,
      Map<String, Long> userShares,
      Map<String, Double> accountUsage,
      Map<String, Long> accountShares,
      long defaultShares) {
    this.users = new Level(userUsage, userShares, defaultShares);
    this.accounts = new Level(accountUsage, accountShares, defaultShares);
  }

  /** The account a job is charged to: its {@code -A} account, else the group it runs as. */
  public static String account(Job job) {
    return job.getAccount().isEmpty() ? job.getEgroup() : job.getAccount();
  }

  public double factor(Job job) {
    return users.factor(job.getEuser()) * accounts.factor(account(job));
  }

  public Level users() {
    return users;
  }

  public Level accounts() {
    return accounts;
  }

  /** One level of names (users, or accounts), with their usage and shares. */
  public static final class Level {
    private final Map<String, Double> usage;
    private final Map<String, Long> shares;
    private final long defaultShares;
    private final double totalUsage;
    private final long totalShares;
    private final Map<String, Double> factors = new HashMap<>();

    Level(Map<String, Double> usage, Map<String, Long> shares, long defaultShares) {
      this.usage = Map.copyOf(usage);
      this.shares = Map.copyOf(shares);
      this.defaultShares = Math.max(1, defaultShares);
      double used = 0;
      for (double u : new TreeMap<>(this.usage).values()) { // one order: the same sum each time
        used += u;
      }
      this.totalUsage = used;
      Set<String> names = new HashSet<>(this.usage.keySet());
      names.addAll(this.shares.keySet());
      long total = 0;
      for (String n : names) {
        total = Math.addExact(total, shares(n));
      }
      this.totalShares = total;
    }

    public long shares(String name) {
      return shares.getOrDefault(name, defaultShares);
    }

    public double usage(String name) {
      return usage.getOrDefault(name, 0.0);
    }

    /** The name's part of all shares, counting it among them. */
    public double normalizedShares(String name) {
      boolean counted = usage.containsKey(name) || shares.containsKey(name);
      long total = counted ? totalShares : totalShares + shares(name);
      return total == 0 ? 1 : shares(name) / (double) total;
    }

    /** The name's part of all usage. */
    public double effectiveUsage(String name) {
      return totalUsage <= 0 ? 0 : usage(name) / totalUsage;
    }

    public double factor(String name) {
      return factors.computeIfAbsent(
          name, n -> StrictMath.pow(2, -effectiveUsage(n) / normalizedShares(n)));
    }
  }
}
