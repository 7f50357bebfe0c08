package dev.berth.scheduler;

/** The scheduler's proposal to requeue a running job so that a preemptor's job can start. */
public record Preemption(String victim, String forJob) {}
