package dev.berth.scheduler;

/**
 * The scheduler's proposal to preempt a running job so that a preemptor's job can start: to requeue
 * it, or to suspend it (it keeps its memory and resumes on its CPUs once they are free again).
 */
public record Preemption(String victim, String forJob, boolean suspend) {
  public Preemption(String victim, String forJob) {
    this(victim, forJob, false);
  }
}
