package dev.berth.mom.os;

import java.util.concurrent.CompletableFuture;

/**
 * A running starter: its pid (the job's session id), the kernel's start time of that pid (to tell
 * it from a later process that reuses the pid), when the job was launched by the wall clock, and a
 * future that completes when the starter has exited.
 */
public record JobProcess(
    long pid, long identity, long launchedMillis, CompletableFuture<Void> exited) {}
