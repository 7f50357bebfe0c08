package dev.berth.scheduler;

/**
 * The weights of the multifactor priority. Each factor is a number from 0 to 1 and a job's priority
 * is their weighted sum, as Slurm's priority/multifactor: age (time eligible, up to {@code
 * maxAgeSeconds}), job size (its share of the cluster's CPUs, or one minus that when {@code
 * favorSmall}), its queue's Priority (placed between the lowest and the highest of all queues), the
 * user's own {@code -p} (from -1024 to 1023), and fair share (its user's and account's {@link
 * FairShare} factor).
 */
public record PriorityWeights(
    double age,
    long maxAgeSeconds,
    double jobSize,
    boolean favorSmall,
    double queue,
    double user,
    double fairShare) {

  /** Only the user's -p counts, as Torque's own scheduler orders jobs. */
  public static final PriorityWeights DEFAULT =
      new PriorityWeights(0, 7 * 24 * 3600, 0, false, 0, 1000, 0);

  public PriorityWeights {
    if (maxAgeSeconds < 1) {
      throw new IllegalArgumentException("the maximum age must be at least one second");
    }
    if (age < 0 || jobSize < 0 || queue < 0 || user < 0 || fairShare < 0) {
      throw new IllegalArgumentException("priority weights must be 0 or more");
    }
  }

  /**
   * Whether only the user's -p decides (or nothing does): jobs then keep the order the state holds
   * them in, and a cycle need not work out every job's priority to find the first ones.
   */
  public boolean ordersAsSubmitted() {
    return age == 0 && jobSize == 0 && queue == 0 && fairShare == 0;
  }
}
