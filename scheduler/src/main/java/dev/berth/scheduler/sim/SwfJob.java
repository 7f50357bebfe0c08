package dev.berth.scheduler.sim;

/**
 * One job of a Standard Workload Format trace: times in seconds from the trace's start, the
 * processors it ran on, how long it ran, the run time it asked for (-1 when the trace does not say;
 * the scheduler plans with it as walltime), and who ran it (user and group ids, -1 unknown), whom
 * fair share charges.
 */
public record SwfJob(
    long number,
    long submit,
    long runtime,
    int processors,
    long requestedTime,
    long user,
    long group) {}
