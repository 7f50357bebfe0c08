package dev.berth.scheduler.sim;

/**
 * One job of a Standard Workload Format trace, the fields a simulation uses: times in seconds from
 * the trace's start, the processors it ran on, and how long it ran.
 */
public record SwfJob(long number, long submit, long runtime, int processors, long requestedTime) {}
