package dev.berth.scheduler.sim;

/**
 * One job of a Standard Workload Format trace: times in seconds from the trace's start, the
 * processors it ran on, and how long it ran. {@code requestedTime} is the run time it asked for (-1
 * when the trace does not say), read for policies that plan by walltime; FIFO does not use it.
 */
public record SwfJob(long number, long submit, long runtime, int processors, long requestedTime) {}
