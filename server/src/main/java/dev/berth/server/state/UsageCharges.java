package dev.berth.server.state;

import static dev.berth.core.ServerAttributeNames.FAIRSHARE_HALF_LIFE;
import static dev.berth.core.ServerAttributeNames.FAIRSHARE_WEIGHT_GPU;
import static dev.berth.core.ServerAttributeNames.FAIRSHARE_WEIGHT_MEM_GB;

import dev.berth.core.Suspensions;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.ShareUsage;
import dev.berth.proto.UsageRestored;
import dev.berth.scheduler.DecayedUsage;
import dev.berth.scheduler.FairShare;
import java.util.Map;
import org.pcollections.PSortedMap;

/**
 * Fair-share usage, charged from job events: when a job ends or is requeued, the time it held its
 * nodes times its CPUs, plus its GPUs and memory (GiB) weighted as CPU equivalents, goes to its
 * user and its account (its {@code -A}, else its group), decayed with a half-life. The event's own
 * time and the server attributes as the journal set them decide every figure, so replaying the
 * journal, or loading a snapshot, gives the same usage on every server.
 */
public final class UsageCharges {
  public static final long DEFAULT_HALF_LIFE = serverDefault(FAIRSHARE_HALF_LIFE);
  public static final long DEFAULT_GPU_WEIGHT = serverDefault(FAIRSHARE_WEIGHT_GPU);
  public static final long DEFAULT_MEMORY_WEIGHT = serverDefault(FAIRSHARE_WEIGHT_MEM_GB);

  private static final double GIB = 1L << 30;

  private UsageCharges() {}

  private static long serverDefault(String name) {
    return Long.parseLong(AttributeTable.SERVER.find(name).orElseThrow().defaultValue());
  }

  /** The half-life in seconds the state's server attributes set. */
  public static long halfLife(Map<String, String> server) {
    return number(server, FAIRSHARE_HALF_LIFE, DEFAULT_HALF_LIFE);
  }

  /** Charges what {@code job} held from its start to {@code endSeconds}, at {@code millis}. */
  static void charge(StateBuilder b, Job job, long endSeconds, long millis) {
    if (job.getStartTime() <= 0 || endSeconds <= job.getStartTime()) {
      return;
    }
    long seconds = Suspensions.ranSeconds(job, endSeconds); // as Slurm, time suspended is free
    double cpus = 0;
    double gpus = 0;
    double memory = 0;
    for (NodeAllocation a : job.getExecNodesList()) {
      cpus += a.getCpusCount();
      gpus += a.getGpus();
      memory += a.getMem() / GIB;
    }
    double amount =
        seconds
            * (cpus
                + gpus * number(b.server, FAIRSHARE_WEIGHT_GPU, DEFAULT_GPU_WEIGHT)
                + memory * number(b.server, FAIRSHARE_WEIGHT_MEM_GB, DEFAULT_MEMORY_WEIGHT));
    long halfLife = halfLife(b.server);
    b.userUsage = plus(b.userUsage, job.getEuser(), amount, millis, halfLife);
    b.accountUsage = plus(b.accountUsage, FairShare.account(job), amount, millis, halfLife);
  }

  /** A snapshot's usage, as it stood. */
  static void restored(StateBuilder b, UsageRestored r) {
    for (ShareUsage u : r.getUsersList()) {
      b.userUsage =
          b.userUsage.plus(u.getName(), new DecayedUsage(u.getValue(), u.getAsOfMillis()));
    }
    for (ShareUsage u : r.getAccountsList()) {
      b.accountUsage =
          b.accountUsage.plus(u.getName(), new DecayedUsage(u.getValue(), u.getAsOfMillis()));
    }
  }

  /** The state's usage as the snapshot event that restores it. */
  static UsageRestored image(ClusterState s) {
    UsageRestored.Builder r = UsageRestored.newBuilder();
    s.userUsage.forEach((name, u) -> r.addUsers(usage(name, u)));
    s.accountUsage.forEach((name, u) -> r.addAccounts(usage(name, u)));
    return r.build();
  }

  private static ShareUsage usage(String name, DecayedUsage u) {
    return ShareUsage.newBuilder()
        .setName(name)
        .setValue(u.value())
        .setAsOfMillis(u.asOfMillis())
        .build();
  }

  private static PSortedMap<String, DecayedUsage> plus(
      PSortedMap<String, DecayedUsage> usage,
      String name,
      double amount,
      long millis,
      long halfLife) {
    DecayedUsage before = usage.getOrDefault(name, DecayedUsage.NONE);
    return usage.plus(name, before.plus(amount, millis, halfLife));
  }

  private static long number(Map<String, String> server, String name, long otherwise) {
    String v = server.get(name);
    return v == null ? otherwise : Long.parseLong(v);
  }
}
