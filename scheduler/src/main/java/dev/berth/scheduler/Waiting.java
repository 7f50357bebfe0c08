package dev.berth.scheduler;

/**
 * Why a cycle did not start a queued job, as its "Not Running: ..." comment says, and when the plan
 * expects it to start (epoch seconds; 0 when the plan holds no start for it).
 */
public record Waiting(String reason, long estimatedStart) {
  public String comment() {
    return "Not Running: " + reason;
  }
}
