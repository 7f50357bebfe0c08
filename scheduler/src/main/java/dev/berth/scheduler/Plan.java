package dev.berth.scheduler;

import java.util.List;
import java.util.Map;

/**
 * What one scheduling cycle decided: the jobs to start, the running jobs to requeue or suspend for
 * preemptors' jobs, the suspended jobs to resume, and for each queued job it looked at and did not
 * start, why not. Jobs past the point where the cycle stopped looking share {@code unexamined}.
 */
public record Plan(
    List<RunDecision> decisions,
    List<Preemption> preemptions,
    List<String> resumptions,
    Map<String, Waiting> waiting,
    Waiting unexamined) {
  public Plan {
    decisions = List.copyOf(decisions);
    preemptions = List.copyOf(preemptions);
    resumptions = List.copyOf(resumptions);
    waiting = Map.copyOf(waiting);
  }

  /** Why {@code jobId} is still queued after this cycle. */
  public Waiting waitingOf(String jobId) {
    return waiting.getOrDefault(jobId, unexamined);
  }
}
