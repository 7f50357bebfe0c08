package dev.berth.scheduler;

/** A job's priority as the weighted factors it is the sum of. */
public record JobPriority(double age, double jobSize, double queue, double user, double fairShare) {
  public double value() {
    return age + jobSize + queue + user + fairShare;
  }
}
